// Intended send times for the open loop: evenly spaced (constant) or a Poisson process
// (exponential gaps), from a seeded generator so a run's arrivals can be reproduced exactly.

import type { RequestDistribution } from '../options/bench-options.js';

/** mulberry32: a tiny, fast 32-bit PRNG; statistically plenty for arrival gaps and test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ArrivalSchedule {
  private readonly meanGapMs: number;
  private readonly random: () => number;
  private next: number;

  /**
   * @param startMs  performance.now() at which the schedule begins
   * @param rate     requests per second
   * @param phase    0..1: constant arrivals start this fraction of a gap late (thread interleaving)
   */
  constructor(
    startMs: number,
    rate: number,
    private readonly distribution: RequestDistribution,
    seed: number,
    phase = 0,
  ) {
    if (!(rate > 0)) throw new Error(`request rate must be > 0, got ${rate}`);
    this.meanGapMs = 1000 / rate;
    this.random = seededRandom(seed);
    this.next = startMs + (distribution === 'constant' ? phase * this.meanGapMs : this.gap());
  }

  /** The intended time of the next request (performance.now() ms). */
  peek(): number {
    return this.next;
  }

  /** Consumes the next intended time and returns it. */
  take(): number {
    const t = this.next;
    this.next += this.gap();
    return t;
  }

  private gap(): number {
    switch (this.distribution) {
      case 'constant':
        return this.meanGapMs;
      case 'poisson':
        // Inverse-CDF sampling of Exp(rate); 1 - u is in (0, 1], so the log is finite.
        return -Math.log(1 - this.random()) * this.meanGapMs;
    }
  }
}
