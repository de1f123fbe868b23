// One stream of the generator's HTTP/2 client, as the connection keeps it: a small record (no
// emitter, no header objects) of its id, its send window, the body still waiting for window, and
// the callbacks its answer goes to.

import type { HeaderField } from './h2-header-block.js';

/** What happens on one stream; exactly one of `endStream` or onAbort ends it. */
export interface H2StreamEvents {
  /** A response header block (headers, or trailers when they end the stream). */
  onHeaders(fields: HeaderField[], endStream: boolean): void;
  onData(chunk: Buffer, endStream: boolean): void;
  /** The stream ended without the server's END_STREAM: reset, refused, or the connection went. */
  onAbort(reason: string): void;
}

/** One request stream: its id once opened (0 while it waits for the server's stream limit). */
export class H2Stream {
  id = 0;
  sendWindow = 0;
  /** Body bytes not yet sent (waiting for window), with whether END_STREAM follows them. */
  readonly queue: { data: Buffer; offset: number; end: boolean }[] = [];
  /** Bytes read since this side last gave window back (see h2-client.ts). */
  unacknowledged = 0;
  /** Ended, reset, cancelled or refused: its events are not called again. */
  done = false;

  constructor(
    readonly headerBlock: Buffer,
    readonly events: H2StreamEvents,
  ) {}
}
