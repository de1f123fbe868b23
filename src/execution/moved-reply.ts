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
