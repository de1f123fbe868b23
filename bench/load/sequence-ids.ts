// Which sequence each request belongs to, in a generator thread. Ids come from the
// --sequence-id-range, each thread taking every `threads`-th id from its own offset so no two
// threads ever run the same id at once; past the end of the range the ids wrap around to the
// start (perf_analyzer's rule), by then long finished. Each sequence's length is drawn from the
// length bounds with the run's seed, so a run is reproducible.

import { seededRandom } from './arrival-schedule.js';
import {
  lengthBounds,
  type SequenceIdRange,
  type SequenceOptions,
} from '../options/sequence-options.js';

/** One request's place in its sequence. */
export interface SequenceStep {
  readonly id: number;
  readonly start: boolean;
  readonly end: boolean;
}

export class SequenceIdAllocator {
  private next: number;

  constructor(
    private readonly range: SequenceIdRange,
    private readonly thread: number,
    private readonly threads: number,
  ) {
    if (range.end - range.start + 1 < threads) {
      throw new Error(
        `sequence id range ${range.start}:${range.end} has fewer ids than the ${threads} generator threads`,
      );
    }
    this.next = range.start + thread;
  }

  take(): number {
    const id = this.next;
    const after = id + this.threads;
    this.next = after > this.range.end ? this.range.start + this.thread : after;
    return id;
  }
}

/** Walks sequence after sequence: the first step of each sets start, its last sets end. */
export class SequenceWalker {
  private id = 0;
  private left = 0;

  constructor(
    private readonly ids: SequenceIdAllocator,
    private readonly lengthOf: () => number,
  ) {}

  next(): SequenceStep {
    const start = this.left === 0;
    if (start) {
      this.id = this.ids.take();
      this.left = this.lengthOf();
    }
    this.left -= 1;
    return { id: this.id, start, end: this.left === 0 };
  }
}

/** Sequence lengths uniform over the bounds, from a seeded generator. */
export function sequenceLengths(
  o: Pick<SequenceOptions, 'length' | 'lengthVariation'>,
  seed: number,
): () => number {
  const { min, max } = lengthBounds(o);
  const random = seededRandom(seed);
  return () => min + Math.floor(random() * (max - min + 1));
}
