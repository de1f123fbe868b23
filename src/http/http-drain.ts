// A front end's side of the shutdown drain, shared by both adapters: the requests it has open
// (read, handled or written), so the server can wait until there are none, and from `begin()` on a
// `Connection: close` on every reply, so each open keep-alive connection is served and then closed.

import type { HttpHandler, HttpReply } from './front-end.js';

export class HttpDrain {
  #draining = false;
  #open = 0;
  #idleWaiters: (() => void)[] = [];

  /** True from `begin()` on. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Requests between their head arriving and their reply handed over (or their abort). */
  get openRequests(): number {
    return this.#open;
  }

  begin(): void {
    this.#draining = true;
  }

  /** A request's head arrived. Pair with exactly one `closed()`. */
  opened(): void {
    this.#open += 1;
  }

  /** A request's reply was handed to the library, or the request was abandoned. */
  closed(): void {
    this.#open -= 1;
    if (this.#open > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves the next time no request is open (at once if none is). */
  whenIdle(): Promise<void> {
    if (this.#open === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * `handler`, with `Connection: close` added to the replies it makes while draining. Checked when
   * the reply is ready, not when the request arrived: a request already in flight when the drain
   * begins closes its connection too. Both adapters close a connection after a reply that says so.
   */
  wrap(handler: HttpHandler): HttpHandler {
    const mark = (reply: HttpReply): HttpReply => (this.#draining ? closing(reply) : reply);
    return (call) => {
      const reply = handler(call);
      // No extra promise hop for a handler that answers synchronously.
      return reply instanceof Promise ? reply.then(mark) : mark(reply);
    };
  }
}

/** A copy of `reply` that says `Connection: close` (the headers object may be shared and frozen). */
function closing(reply: HttpReply): HttpReply {
  return { ...reply, headers: { ...reply.headers, connection: 'close' } };
}
