// gRPC's length-prefixed messages on an HTTP/2 stream, for the load generator: the 5-byte prefix
// (compressed flag, big-endian length) put on a request once. Answers are cut back into whole
// messages by the server's own reader (src/grpc/message-reader.ts), with no size limit.

import { PREFIX_BYTES } from 'infernode/tooling';

/** The prefix of every gRPC message: one flag byte (0: not compressed) and a 4-byte length. */
export { PREFIX_BYTES };

/** `message` behind its gRPC prefix, in one new buffer (built once per payload, never per send). */
export function framedMessage(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX_BYTES + message.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(message.byteLength, 1);
  framed.set(message, PREFIX_BYTES);
  return framed;
}
