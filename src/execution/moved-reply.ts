// A worker's reply whose descriptors point into ArrayBuffers that move back with it (transferred,
// not copied). piscina transfers a task's result only when the handler returns one object marked
// by Piscina.move; this builds that object: its transfer list is the buffers, its value the reply,
// which piscina unwraps before the main thread sees it (the main thread gets the RunResponse).

import { Piscina } from 'piscina';
import type { RunResponse } from './messages.js';

declare const moved: unique symbol;

/** A RunResponse wrapped for piscina with its transfer list; opaque to everything but piscina. */
export interface MovedReply {
  readonly [moved]: RunResponse;
}

export function movedReply(response: RunResponse, buffers: readonly ArrayBuffer[]): MovedReply {
  // piscina reads the transfer list from the transferable symbol (an array is concatenated into
  // postMessage's list) and the result from the value symbol; move() only marks it as movable.
  const reply = {
    [Piscina.transferableSymbol]: buffers,
    [Piscina.valueSymbol]: response,
  };
  return Piscina.move(reply as unknown as ArrayBuffer) as unknown as MovedReply;
}

/**
 * What a handler returned, as a value and the buffers to transfer with it: a MovedReply comes apart
 * into its reply and its buffers; anything else is itself, with nothing to transfer. For a channel
 * of its own (the doorbell, doorbell.ts), which posts the reply itself rather than through piscina.
 */
export function unwrapReply(reply: unknown): { value: unknown; transfer: ArrayBuffer[] } {
  if (typeof reply === 'object' && reply !== null && Piscina.valueSymbol in reply) {
    const r = reply as Record<symbol, unknown>;
    const buffers = r[Piscina.transferableSymbol];
    return {
      value: r[Piscina.valueSymbol],
      transfer: Array.isArray(buffers) ? (buffers as ArrayBuffer[]) : [],
    };
  }
  return { value: reply, transfer: [] };
}
