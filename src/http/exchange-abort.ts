// An HTTP exchange's cancellation: a flag and the listeners to call when the client goes away,
// without an AbortController (execution/abort-like.ts says why). Listeners run once, in the order
// they were added, as an AbortSignal's do; one added after the abort is never called, as with
// AbortSignal (callers check `aborted` first).

import type { AbortLike } from '../execution/abort-like.js';

export class ExchangeAbort implements AbortLike {
  #aborted = false;
  #reason: unknown;
  /** Allocated by the first listener: most requests finish before anything listens, or unlisten. */
  #listeners: (() => void)[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }

  /** Marks the exchange aborted and calls each listener once; a listener's throw does not stop the rest. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As EventTarget does with a throwing listener: reported as uncaught, not swallowed.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
