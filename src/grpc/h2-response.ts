// What grpc-js writes on an HTTP/2 stream to answer a call, for the calls served beside it
// (unary-infer.ts, stream-infer.ts): the response headers, the length prefix of each message, and
// the status, as trailers after messages or as a trailers-only response before any. The header
// objects are built once: node:http2 copies them into its own frame, so one serves every call.

import type http2 from 'node:http2';
import { status } from '@grpc/grpc-js';

/** Bytes in front of each gRPC message: a compressed flag, then the length (uint32, big-endian). */
export const PREFIX_BYTES = 5;

/** The headers grpc-js sends before a call's first message. */
const RESPONSE_HEADERS = Object.freeze({
  ':status': 200,
  'content-type': 'application/grpc+proto',
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
});

const OK_TRAILERS = Object.freeze({ 'grpc-status': '0', 'grpc-message': 'OK' });
const OK_ONLY = Object.freeze({
  ':status': 200,
  'content-type': 'application/grpc+proto',
  ...OK_TRAILERS,
});
const RESPOND_FOR_TRAILERS = Object.freeze({ waitForTrailers: true });
const RESPOND_AND_END = Object.freeze({ endStream: true });

/**
 * Fills in the prefix of a message encoded behind PREFIX_BYTES reserved bytes: uncompressed
 * (grpc-js's server compresses nothing), and the message's length.
 */
export function framePrefix(framed: Buffer): Buffer {
  framed[0] = 0;
  framed.writeUInt32BE(framed.length - PREFIX_BYTES, 1);
  return framed;
}

/** Sends the response headers; later messages go out as DATA, and the status as trailers. */
export function respond(stream: http2.ServerHttp2Stream): void {
  stream.respond(RESPONSE_HEADERS, RESPOND_FOR_TRAILERS);
}

/**
 * Ends the call with `code`: trailers after the messages sent (the headers went with the first),
 * or a trailers-only response when none was. A stream already closed, or ending, is left alone.
 */
export function endWithStatus(
  stream: http2.ServerHttp2Stream,
  code: status,
  details: string,
  extra?: Readonly<Record<string, string>>,
): void {
  if (stream.closed || stream.destroyed || stream.writableEnded) return;
  if (!stream.headersSent) {
    stream.respond(
      code === status.OK
        ? OK_ONLY
        : {
            ':status': 200,
            'content-type': 'application/grpc+proto',
            'grpc-status': String(code),
            'grpc-message': encodeURI(details),
            ...extra,
          },
      RESPOND_AND_END,
    );
    return;
  }
  const trailers =
    code === status.OK
      ? OK_TRAILERS
      : { 'grpc-status': String(code), 'grpc-message': encodeURI(details), ...extra };
  stream.once('wantTrailers', () => stream.sendTrailers(trailers));
  stream.end();
}

/**
 * Ends a call with its one message, then status OK; `sent` runs once the message has left for the
 * client (node:http2's write callback: after flow control let it out).
 */
export function endWithMessage(
  stream: http2.ServerHttp2Stream,
  framed: Buffer,
  sent?: () => void,
): void {
  stream.respond(RESPONSE_HEADERS, RESPOND_FOR_TRAILERS);
  stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
  stream.end(framed, sent);
}
