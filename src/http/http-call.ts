// The concrete `HttpCall` both adapters hand to the handler: request-line parts, a header map read
// up front, the body, and the abort signal. Plain data, so it stays valid after the library's own
// request object is gone (uWS's `HttpRequest` dies when the route callback returns).

import type { HttpCall } from './front-end.js';
import type { AbortLike } from '../execution/abort-like.js';

export interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** Lower-case names; a repeated header's values joined with ", " (RFC 9110 §5.3). */
  readonly headers: ReadonlyMap<string, string>;
}

const RELEASED = new Uint8Array(0);

export class AdapterCall implements HttpCall {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly signal: AbortLike;
  readonly #headers: ReadonlyMap<string, string>;
  #body: Uint8Array;
  /** Runs once, at the first releaseBody (the exchange's client-memory reservation goes). */
  #onRelease: (() => void) | undefined;

  constructor(head: RequestHead, body: Uint8Array, signal: AbortLike, onRelease?: () => void) {
    this.method = head.method;
    this.path = head.path;
    this.query = head.query;
    this.#headers = head.headers;
    this.#body = body;
    this.signal = signal;
    this.#onRelease = onRelease;
  }

  get body(): Uint8Array {
    return this.#body;
  }

  /** The only reference the adapter kept goes: the exchange let go of it when it dispatched. */
  releaseBody(): void {
    this.#body = RELEASED;
    const onRelease = this.#onRelease;
    this.#onRelease = undefined;
    onRelease?.();
  }

  header(name: string): string | undefined {
    // Callers are meant to pass lower-case names; lower-casing anyway costs little and removes a
    // class of silent misses ("Content-Type" never matching).
    return this.#headers.get(name) ?? this.#headers.get(name.toLowerCase());
  }
}

/** Adds one header to a map being built, joining repeats the way node:http's joinDuplicateHeaders does. */
export function addHeader(headers: Map<string, string>, name: string, value: string): void {
  const previous = headers.get(name);
  headers.set(name, previous === undefined ? value : `${previous}, ${value}`);
}

/** Splits a request target into path and raw query ("" when there is none). */
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf('?');
  return q < 0
    ? { path: target, query: '' }
    : { path: target.slice(0, q), query: target.slice(q + 1) };
}
