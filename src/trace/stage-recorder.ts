// The aggregate of traced requests (--trace-stages): for each stage, the time from the previous
// stage that was stamped to it, kept for the last RING_SIZE traced requests and summarized on
// demand as count, mean, p50 and p99 in µs (`GET /v2/debug/stages`). Bounded memory, no work per
// request beyond copying its deltas; percentiles are computed only when someone asks.

import { STAGES, StageTrace, type Stage } from './stage-trace.js';

/** Traced requests kept per stage: enough for stable percentiles over one benchmark window. */
const RING_SIZE = 1 << 15;

export interface StageRow {
  /** The stage this row ends at; 'total' is receive to send. */
  readonly stage: Stage | 'total';
  readonly count: number;
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

export interface StageTable {
  /** Traced requests recorded since the last reset (the rows cover the last RING_SIZE). */
  readonly requests: number;
  readonly stages: readonly StageRow[];
}

/** One ring of durations (ns) for one stage. */
class Ring {
  readonly values = new Float64Array(RING_SIZE);
  count = 0;

  push(ns: number): void {
    this.values[this.count % RING_SIZE] = ns;
    this.count++;
  }

  row(stage: StageRow['stage']): StageRow {
    const n = Math.min(this.count, RING_SIZE);
    if (n === 0) return { stage, count: 0, meanUs: 0, p50Us: 0, p99Us: 0 };
    const sorted = this.values.slice(0, n).sort();
    let sum = 0;
    for (const v of sorted) sum += v;
    const at = (q: number): number => (sorted[Math.min(n - 1, Math.floor(q * n))] ?? 0) / 1000;
    return { stage, count: this.count, meanUs: sum / n / 1000, p50Us: at(0.5), p99Us: at(0.99) };
  }
}

export class StageRecorder {
  #rings = STAGES.map(() => new Ring());
  #total = new Ring();
  #requests = 0;

  /** Starts the trace of a request that arrived at `receivedNs`. */
  begin(receivedNs: number): StageTrace {
    return new StageTrace(receivedNs);
  }

  /** Adds a finished trace: each stamped stage's time since the previous stamped one. */
  record(trace: StageTrace): void {
    const at = trace.at;
    let previous = at[0] ?? Number.NaN;
    for (let i = 1; i < at.length; i++) {
      const t = at[i] ?? Number.NaN;
      if (Number.isNaN(t)) continue;
      this.#rings[i]?.push(t - previous);
      previous = t;
    }
    this.#total.push(previous - (at[0] ?? previous));
    this.#requests++;
  }

  table(): StageTable {
    const stages = STAGES.slice(1).map((s, i) => (this.#rings[i + 1] as Ring).row(s));
    return { requests: this.#requests, stages: [...stages, this.#total.row('total')] };
  }

  reset(): void {
    this.#rings = STAGES.map(() => new Ring());
    this.#total = new Ring();
    this.#requests = 0;
  }
}
