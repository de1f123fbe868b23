// The node:http front end's answer to a request with both `Transfer-Encoding: chunked` and
// `Content-Length`: node's parser (llhttp) refuses it before any route runs, but Triton reads it by
// its Transfer-Encoding and closes the connection after the response (RFC 9112 §6.1, §6.3). Here
// the refused socket is taken from node:http: its head is re-parsed strictly from the bytes the
// parser was given (`err.rawPacket`), the chunked body is decoded by `ChunkedDecoder` under the
// same size limit and chunk cap as any body, the request goes through the same `HttpExchange` and
// routes, and the reply is written with `Connection: close`.
//
// Only that one refusal is taken over, and only when the whole head sits at the start of the bytes
// node's parser was given (the usual case: a client writes a head in one write). Anything else
// stays node's 400 + close, which a request with both headers was before.

import type { Socket } from 'node:net';
import type { HttpHandler } from '../front-end.js';
import type { MemoryBudget } from '../../memory/client-budget.js';
import type { RequestHead } from '../http-call.js';
import { ChunkedDecoder } from '../chunked-decoder.js';
import { HttpExchange } from '../http-exchange.js';
import type { WireReply } from '../reply-body.js';
import { parseRequestHead } from '../request-head-parser.js';

/** llhttp's error codes for Content-Length after Transfer-Encoding and the reverse (Node 20-24). */
const BOTH_FRAMING_HEADERS = new Set([
  'HPE_INVALID_CONTENT_LENGTH',
  'HPE_INVALID_TRANSFER_ENCODING',
]);

/** Thrown by the decoder's data callback once the exchange stopped reading: ends decoding. */
const STOP = Symbol('stop');

export interface TakeoverOptions {
  readonly handler: HttpHandler;
  readonly maxBodyBytes: number;
  /** The client-memory budget the body is reserved from, as any request's (http-exchange.ts). */
  readonly budget?: MemoryBudget;
  readonly bodyTimeoutMs: number;
  /** Runs once the exchange has ended, whatever the outcome (drain accounting). */
  readonly onSettled: () => void;
}

/**
 * Takes the socket over when `error` is node's refusal of a head with both framing headers and
 * `rawPacket` holds that whole head. Returns false (socket untouched) otherwise.
 */
export function takeOverBothFramingHeaders(
  error: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
  options: TakeoverOptions,
): boolean {
  if (!BOTH_FRAMING_HEADERS.has(error.code ?? '') || !(error.rawPacket instanceof Uint8Array)) {
    return false;
  }
  const packet = error.rawPacket;
  const parsed = parseRequestHead(packet);
  if ('refused' in parsed) return false;
  const { headers } = parsed.head;
  if (!headers.has('transfer-encoding') || !headers.has('content-length')) return false;
  // node's http server reads this socket through its 'data' listener; with it gone, the bytes are
  // this exchange's alone. Its 'end' listener would end the socket when a client half-closes after
  // sending (the failed parser reports no error on finish), before the reply: removed too, by name
  // since node keeps no handle on it. Its 'close' listener only tidies node's state and stays.
  socket.removeAllListeners('data');
  for (const listener of socket.listeners('end')) {
    if (listener.name === 'bound socketOnEnd') socket.off('end', listener as () => void);
  }
  new SocketExchange(socket, parsed.head, options).start(packet.subarray(parsed.length));
  return true;
}

class SocketExchange extends HttpExchange {
  readonly #socket: Socket;
  readonly #options: TakeoverOptions;
  readonly #expectsContinue: boolean;
  #settled = false;

  constructor(socket: Socket, head: RequestHead, options: TakeoverOptions) {
    super(head, options.handler, options.maxBodyBytes, options.budget);
    this.#socket = socket;
    this.#options = options;
    this.#expectsContinue = head.headers.get('expect')?.trim().toLowerCase() === '100-continue';
  }

  start(rest: Uint8Array): void {
    const socket = this.#socket;
    socket.once('close', () => {
      this.abandon();
      this.#settle();
    });
    if (!this.begin()) return;
    const decoder = new ChunkedDecoder((piece) => {
      if (!this.bodyChunk(piece)) throw STOP;
    });
    const feed = (bytes: Uint8Array): void => {
      try {
        decoder.push(bytes);
      } catch (error) {
        if (error !== STOP) this.bodyFailed(error);
      }
      if (this.state !== 'reading') {
        socket.off('data', feed);
        return;
      }
      if (decoder.done) {
        // Bytes after the body are not served: the connection closes after this reply.
        socket.off('data', feed);
        socket.setTimeout(0);
        this.bodyEnd();
      }
    };
    // A client that asked to wait (curl does for bodies over 1 KiB) gets the go-ahead node's own
    // requests get, unless the body has already started.
    if (rest.byteLength === 0 && this.#expectsContinue) {
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
    }
    // The same body timeout as node's own requests: silence while the body arrives closes it.
    socket.setTimeout(this.#options.bodyTimeoutMs, () => socket.destroy());
    socket.on('data', feed);
    if (rest.byteLength > 0) feed(rest);
  }

  protected breakConnection(): void {
    this.#socket.destroy();
  }

  protected writeRejection(wire: WireReply): void {
    this.#write(wire, () => this.#settle());
  }

  protected writeReply(wire: WireReply): void {
    this.#write(wire, () => {
      this.delivered();
      this.#settle();
    });
  }

  /**
   * Writes the whole reply and ends the socket; `written` runs once the last byte is handed to the
   * kernel. The socket buffers what it cannot send at once (references, no copies): the connection
   * ends after this reply, so there is no later request to hold back. End, not destroy: closing
   * with request bytes unread would reset the connection and could lose the reply.
   */
  #write(wire: WireReply, written: () => void): void {
    const socket = this.#socket;
    if (socket.destroyed) return;
    let head = `HTTP/1.1 ${wire.statusLine}\r\n`;
    for (const [name, value] of wire.headers) {
      if (name.toLowerCase() !== 'connection') head += `${name}: ${value}\r\n`;
    }
    head +=
      `Date: ${new Date().toUTCString()}\r\n` +
      `Content-Length: ${wire.totalBytes}\r\n` +
      'Connection: close\r\n\r\n';
    socket.cork();
    socket.write(head, 'latin1');
    for (const chunk of wire.chunks) socket.write(chunk);
    socket.end(written);
    socket.uncork();
    // A client that never closes its side is cut off after the body timeout.
    socket.setTimeout(this.#options.bodyTimeoutMs, () => socket.destroy());
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#options.onSettled();
  }
}
