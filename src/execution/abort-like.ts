// What the data plane and the schedulers need of a request's cancellation: whether it happened, and
// a callback when it does. An AbortSignal is one (gRPC, WebSocket and BLS pass theirs); the HTTP
// front end passes its own flag-and-listeners (http/exchange-abort.ts) instead, because on Node 20
// an AbortController whose signal is read costs ~6 µs and an abort listener added and removed ~4 µs
// more (measured in a loop: 9.6 µs per request against 0.6 µs on Node 24), and HTTP requests are
// almost never aborted.

export interface AbortLike {
  readonly aborted: boolean;
  /** Why, once aborted (an AbortSignal's may be anything; HTTP's is a CANCELLED server error). */
  readonly reason: unknown;
  addEventListener(
    type: 'abort',
    listener: () => void,
    options?: { readonly once?: boolean },
  ): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
