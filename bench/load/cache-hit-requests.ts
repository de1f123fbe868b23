// `--cache-hit-ratio r`: a share r of requests repeats an input sent before, the rest carry an input
// never sent, so a server's response cache sees about r hits. Requests stay prebuilt: the first
// element of the first input holds a placeholder (NONCE_PLACEHOLDER, the widest nonce), and each
// send copies the request and writes a nonce there — as fixed-width JSON digits padded with
// spaces, or as the element's little-endian bytes with the binary extension — so Content-Length
// never changes. A fresh request takes the next unused nonce (threads take every threads-th, and
// the counter lives as long as the generator thread, so no level resends an earlier level's
// input); a repeat takes one of the last POOL fresh nonces of this thread, chosen by a seeded
// random, so runs with the same seed send the same sequence. A repeat of a request still in
// flight misses (nothing is stored yet): the server's own hit count is the figure to read.

import type { Datatype } from 'infernode/tooling';
import { seededRandom } from './arrival-schedule.js';

/** The widest nonce: FP32 holds every integer up to 2^24 exactly, so distinct nonces stay distinct. */
export const NONCE_PLACEHOLDER = 16_777_215;
const NONCE_WIDTH = String(NONCE_PLACEHOLDER).length;
/** Recent fresh inputs a repeat picks from: small enough that a repeat is usually still cached. */
export const REPEAT_POOL = 64;

/** Datatypes whose element can hold every nonce exactly, in JSON and in binary. */
export const NONCE_DATATYPES: readonly Datatype[] = [
  'FP32',
  'FP64',
  'INT32',
  'INT64',
  'UINT32',
  'UINT64',
];

/** Where one request's nonce goes: a JSON number, or the binary element's first byte. */
export type NonceSite =
  | { readonly kind: 'json'; readonly offset: number }
  | { readonly kind: 'binary'; readonly offset: number; readonly datatype: Datatype };

/** What a generator thread needs to send the mix. */
export interface CacheHitInit {
  readonly ratio: number;
  /** One site per prebuilt request, at the same index. */
  readonly sites: readonly NonceSite[];
  /** Generator threads in the run: thread i sends nonces i, i + threads, ... (plus one). */
  readonly threads: number;
  readonly seed: number;
}

/**
 * The site of a JSON request's placeholder: the first element of a `data` array (the first
 * input's, as JSON.stringify writes it), found exactly once.
 */
export function jsonNonceSite(bytes: Buffer): NonceSite {
  const mark = `"data":[${NONCE_PLACEHOLDER}`;
  const at = bytes.indexOf(mark, 0, 'latin1');
  if (at === -1 || bytes.indexOf(mark, at + 1, 'latin1') !== -1) {
    throw new Error(`expected the nonce placeholder ${mark} exactly once in the request`);
  }
  return { kind: 'json', offset: at + mark.length - NONCE_WIDTH };
}

/** Writes `nonce` at `site` of `out` (a copy of the request). */
export function writeNonce(out: Buffer, site: NonceSite, nonce: number): void {
  if (site.kind === 'json') {
    out.write(String(nonce).padEnd(NONCE_WIDTH, ' '), site.offset, 'latin1');
    return;
  }
  const at = site.offset;
  switch (site.datatype) {
    case 'FP32':
      out.writeFloatLE(nonce, at);
      return;
    case 'FP64':
      out.writeDoubleLE(nonce, at);
      return;
    case 'INT32':
      out.writeInt32LE(nonce, at);
      return;
    case 'UINT32':
      out.writeUInt32LE(nonce, at);
      return;
    case 'INT64':
      out.writeBigInt64LE(BigInt(nonce), at);
      return;
    case 'UINT64':
      out.writeBigUInt64LE(BigInt(nonce), at);
      return;
    default:
      throw new Error(`--cache-hit-ratio: no nonce for ${site.datatype}`);
  }
}

/** The closed or open loop's request source: fresh or repeated inputs in the asked-for mix. */
export class CacheHitRequests {
  private readonly random: () => number;
  private readonly pool: { template: number; nonce: number }[] = [];
  private poolNext = 0;
  private fresh = 0;
  private template = 0;

  constructor(
    private readonly templates: readonly Buffer[],
    private readonly init: CacheHitInit,
    private readonly threadIndex: number,
  ) {
    if (templates.length === 0 || templates.length !== init.sites.length) {
      throw new Error('one nonce site per request payload');
    }
    this.random = seededRandom(init.seed * 7919 + 104_729 + threadIndex);
  }

  next(): Buffer {
    const repeat = this.pool.length > 0 && this.random() < this.init.ratio;
    const pick = repeat
      ? (this.pool[Math.floor(this.random() * this.pool.length)] as {
          template: number;
          nonce: number;
        })
      : this.freshInput();
    const template = this.templates[pick.template] as Buffer;
    const out = Buffer.allocUnsafe(template.length);
    template.copy(out);
    writeNonce(out, this.init.sites[pick.template] as NonceSite, pick.nonce);
    return out;
  }

  private freshInput(): { template: number; nonce: number } {
    const nonce = 1 + this.threadIndex + this.fresh * this.init.threads;
    if (nonce >= NONCE_PLACEHOLDER) {
      throw new Error(`--cache-hit-ratio: more than ${NONCE_PLACEHOLDER} fresh inputs`);
    }
    this.fresh += 1;
    const pick = { template: this.template, nonce };
    this.template = (this.template + 1) % this.templates.length;
    // A ring of the last REPEAT_POOL fresh inputs.
    if (this.pool.length < REPEAT_POOL) this.pool.push(pick);
    else this.pool[this.poolNext] = pick;
    this.poolNext = (this.poolNext + 1) % REPEAT_POOL;
    return pick;
  }
}
