// HTTP requests of a sequence model, still prebuilt: the body's top-level `parameters` carry
// `sequence_id`, `sequence_start` and `sequence_end` as fixed-width placeholders
// (SEQUENCE_PLACEHOLDER, the widest id and two `false`s), so each send copies the request and
// patches three spots in place — the id left-aligned in its 16 characters and padded with spaces,
// each flag as `true ` or `false` — and Content-Length never changes. JSON allows the spaces, so
// the server reads exactly the id and flags of that request.

import { MAX_SEQUENCE_ID, type SequenceOptions } from '../options/sequence-options.js';
import {
  SequenceIdAllocator,
  SequenceWalker,
  sequenceLengths,
  type SequenceStep,
} from './sequence-ids.js';

export const SEQUENCE_PLACEHOLDER = Object.freeze({
  sequence_id: MAX_SEQUENCE_ID,
  sequence_start: false,
  sequence_end: false,
});

const ID_WIDTH = String(MAX_SEQUENCE_ID).length;
const MARKS = {
  id: `"sequence_id":${MAX_SEQUENCE_ID}`,
  start: '"sequence_start":false',
  end: '"sequence_end":false',
} as const;

/** Byte offsets of the three values inside one request (or body). */
export interface SequenceSites {
  readonly id: number;
  readonly start: number;
  readonly end: number;
}

function siteOf(bytes: Buffer, mark: string): number {
  const at = bytes.indexOf(mark, 0, 'latin1');
  if (at === -1 || bytes.indexOf(mark, at + 1, 'latin1') !== -1) {
    throw new Error(`expected the placeholder ${mark} exactly once in the request`);
  }
  // The value starts after the key and its colon: everything up to the ':' in the mark.
  return at + mark.indexOf(':') + 1;
}

export function sequenceSites(bytes: Buffer): SequenceSites {
  return {
    id: siteOf(bytes, MARKS.id),
    start: siteOf(bytes, MARKS.start),
    end: siteOf(bytes, MARKS.end),
  };
}

/** A copy of `template` carrying `step`'s id and flags. */
export function patchSequence(template: Buffer, sites: SequenceSites, step: SequenceStep): Buffer {
  const out = Buffer.allocUnsafe(template.length);
  template.copy(out);
  out.write(String(step.id).padEnd(ID_WIDTH, ' '), sites.id, 'latin1');
  out.write(step.start ? 'true ' : 'false', sites.start, 'latin1');
  out.write(step.end ? 'true ' : 'false', sites.end, 'latin1');
  return out;
}

/** What a generator thread needs to send sequences. */
export interface HttpSequenceInit {
  readonly options: Pick<SequenceOptions, 'length' | 'lengthVariation' | 'idRange'>;
  /** Generator threads in the run: each takes every threads-th id. */
  readonly threads: number;
  readonly seed: number;
}

/**
 * The closed loop's request source for a sequence model: each connection (slot) walks its own
 * sequences, and it sends its next request only after the answer to its last one, so the requests
 * of a sequence reach the server in order.
 */
export class HttpSequenceRequests {
  private readonly sites: SequenceSites[];
  private readonly walkers: SequenceWalker[] = [];
  private readonly ids: SequenceIdAllocator;
  private readonly lengths: () => number;
  private payload = 0;

  constructor(
    private readonly templates: readonly Buffer[],
    init: HttpSequenceInit,
    threadIndex: number,
  ) {
    if (templates.length === 0) throw new Error('no request payloads');
    this.sites = templates.map(sequenceSites);
    this.ids = new SequenceIdAllocator(init.options.idRange, threadIndex, init.threads);
    this.lengths = sequenceLengths(init.options, init.seed * 7919 + threadIndex);
  }

  next(slot: number): Buffer {
    const walker = (this.walkers[slot] ??= new SequenceWalker(this.ids, this.lengths));
    const i = this.payload;
    this.payload = (i + 1) % this.templates.length;
    return patchSequence(
      this.templates[i] as Buffer,
      this.sites[i] as SequenceSites,
      walker.next(),
    );
  }
}
