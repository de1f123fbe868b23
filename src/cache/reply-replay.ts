// Reply replay: the local response cache's fast tier for a request that repeats an earlier one byte
// for byte. The transport hands over the request exactly as it arrived (its body and the framing
// that says how to read it); when those bytes were answered before from a cacheable run, the
// stored encoded reply is sent again without decoding, validating or encoding anything. A miss goes
// the normal way (where the response cache proper, keyed by the validated request, still answers
// repeats that differ only in encoding), and its encoded reply is stored once the data plane has
// said the request was cacheable: a successful run or a hit of the response cache, with no
// shared-memory tensor (whose bytes are not in the body).
//
// Entries live in the same LocalCache, under the same byte budget, as the response cache's: their
// keys ("R" + the model version's number + framing + the body's SHA-256) never equal one of its
// 64-hex-digit digests. The key names the model version object, so a reload, which makes a new
// one, never replays a reply of the old.

import { sha256, type CacheKey } from './cache-key.js';
import type { CachedResponse } from './cached-response.js';
import type { LocalCache } from './local-cache.js';
import type { ResponseCache } from './response-cache.js';

/** A reply as the transport encoded it: its framing (e.g. JSON or binary with a header length). */
export interface StoredReply {
  readonly kind: 'reply';
  /** The transport's own description of the encoding (HTTP: the Inference-Header-Content-Length). */
  readonly framing: string;
  /** The encoded body, one private copy. */
  readonly body: Uint8Array;
}

/** What the process's local cache holds: response cache entries and replayable replies. */
export type LocalEntry = CachedResponse | StoredReply;

/** The request as it arrived: how to read it (framing) and its bytes. */
export interface WireRequest {
  readonly framing: string;
  readonly bytes: Uint8Array;
}

/** Per-entry bookkeeping beyond the body (the framing string and the reply object). */
const REPLY_OVERHEAD_BYTES = 64;

/** The replies of one process, in its local cache. */
export class ReplyReplay {
  readonly #store: LocalCache<LocalEntry>;
  /** A number per model version object, so keys change when a reload makes a new one. */
  readonly #ids = new WeakMap<object, number>();
  #nextId = 1;

  constructor(store: LocalCache<LocalEntry>) {
    this.#store = store;
  }

  /** The stored reply for these bytes sent to `version`, or the miss to complete once answered. */
  lookup(version: object, request: WireRequest): StoredReply | ReplayMiss {
    let id = this.#ids.get(version);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(version, id);
    }
    const digest = sha256(request.bytes).toString('base64');
    const key: CacheKey = { hash: `R${id}|${request.framing}|${digest}`, bytes: EMPTY };
    const found = this.#store.lookup(key);
    if (found !== undefined && 'kind' in found) return found;
    return new ReplayMiss(this.#store, key);
  }
}

const EMPTY = new Uint8Array(0);

/**
 * A request whose bytes were not stored: the data plane marks it cacheable (its answer came from a
 * run the response cache stored, or from the response cache) and the transport then remembers its
 * encoded reply. Unmarked, `remember` stores nothing.
 */
export class ReplayMiss {
  #cacheable = false;

  constructor(
    private readonly store: LocalCache<LocalEntry>,
    private readonly key: CacheKey,
  ) {}

  /** The answer is the one the response cache holds for this request. */
  markCacheable(): void {
    this.#cacheable = true;
  }

  /** Stores the encoded reply (its chunks copied into one buffer) when the answer was cacheable. */
  remember(framing: string, chunks: readonly Uint8Array[]): void {
    if (!this.#cacheable) return;
    let n = 0;
    for (const c of chunks) n += c.byteLength;
    const body = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) {
      body.set(c, at);
      at += c.byteLength;
    }
    const reply: StoredReply = { kind: 'reply', framing, body };
    this.store.insert(this.key, reply, n + framing.length + REPLY_OVERHEAD_BYTES);
  }
}

/** The response cache's view of the local store: replies are not responses. */
export function responseView(store: LocalCache<LocalEntry>): ResponseCache<CachedResponse> {
  return {
    lookup(key) {
      const found = store.lookup(key);
      return found === undefined || 'kind' in found ? undefined : found;
    },
    insert: (key, value, valueBytes) => store.insert(key, value, valueBytes),
    usage: () => store.usage(),
  };
}
