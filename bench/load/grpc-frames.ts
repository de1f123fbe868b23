// gRPC's length-prefixed messages on an HTTP/2 stream, for the load generator: the 5-byte prefix
// (compressed flag, big-endian length) put on a request once, and a reader that cuts a stream's
// DATA chunks back into whole messages however HTTP/2 split or joined them.

/** The prefix of every gRPC message: one flag byte (0: not compressed) and a 4-byte length. */
export const PREFIX_BYTES = 5;

/** `message` behind its gRPC prefix, in one new buffer (built once per payload, never per send). */
export function framedMessage(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX_BYTES + message.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(message.byteLength, 1);
  framed.set(message, PREFIX_BYTES);
  return framed;
}

/**
 * Whole messages out of a stream's chunks. A chunk usually holds exactly one message (the server
 * writes each in one DATA frame), so that case is a slice with no copy; a message split across
 * chunks is joined once it is complete.
 */
export class GrpcMessageReader {
  private held: Buffer[] = [];
  private heldBytes = 0;

  /**
   * Calls `onMessage` for each message completed by `chunk`; returns an error text when the bytes
   * cannot be gRPC messages (a compressed message: the generator never asks for compression).
   */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): string | null {
    let data = chunk;
    if (this.heldBytes > 0) {
      this.held.push(chunk);
      data = Buffer.concat(this.held, this.heldBytes + chunk.length);
      this.held = [];
      this.heldBytes = 0;
    }
    let at = 0;
    while (data.length - at >= PREFIX_BYTES) {
      if (data[at] !== 0) return `a message with compressed flag ${String(data[at])}`;
      const end = at + PREFIX_BYTES + data.readUInt32BE(at + 1);
      if (end > data.length) break;
      onMessage(data.subarray(at + PREFIX_BYTES, end));
      at = end;
    }
    if (at < data.length) {
      const rest = data.subarray(at);
      this.held.push(rest);
      this.heldBytes = rest.length;
    }
    return null;
  }

  /** Bytes of a message begun and not finished (non-zero when a stream ends is a truncation). */
  get partialBytes(): number {
    return this.heldBytes;
  }
}
