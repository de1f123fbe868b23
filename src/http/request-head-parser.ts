// Parses an HTTP/1.1 request head (request line and header fields) from raw bytes, for the one
// path where infernode reads a request off the socket itself (node/node-framing-takeover.ts): the
// head node's parser refused because it carried both Transfer-Encoding and Content-Length.
//
// Strict (RFC 9112 §2-§5): CRLF line ends only, token method and header names, no whitespace before
// a colon, no obsolete line folding, HTTP/1.1 only, at most 16 KiB (node's default header limit).
// Anything else is not taken over: the caller answers it as node's parser would have, 400 + close.

import { addHeader, splitTarget, type RequestHead } from './http-call.js';

/** node's default --max-http-header-size: a head this parser accepts node would have accepted. */
export const MAX_HEAD_BYTES = 16 * 1024;

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e]+) HTTP\/1\.1$/;
const FIELD = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\x20-\x7e\t\x80-\xff]*?)[ \t]*$/;

export interface ParsedHead {
  readonly head: RequestHead;
  /** Bytes of the head, final CRLF CRLF included: the body starts here. */
  readonly length: number;
}

/**
 * The request head at the start of `bytes`, or a reason it is not one this parser accepts (also
 * when the head is incomplete: the caller only has what node's parser was given).
 */
export function parseRequestHead(bytes: Uint8Array): ParsedHead | { readonly refused: string } {
  const text = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.byteLength, MAX_HEAD_BYTES),
  ).toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { refused: `no complete request head in the first ${text.length} bytes` };
  const lines = text.slice(0, end).split('\r\n');
  const requestLine = REQUEST_LINE.exec(lines[0] ?? '');
  if (requestLine === null) return { refused: 'malformed request line' };
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    if (line.includes('\n') || line.includes('\r')) return { refused: 'bare CR or LF in the head' };
    const field = FIELD.exec(line);
    if (field === null) return { refused: `malformed header field "${line.slice(0, 40)}"` };
    addHeader(headers, (field[1] ?? '').toLowerCase(), field[2] ?? '');
  }
  // node (requireHostHeader) refuses an HTTP/1.1 request without Host; so does this.
  if (!headers.has('host')) return { refused: 'no Host header' };
  const { path, query } = splitTarget(requestLine[2] ?? '/');
  return {
    head: { method: (requestLine[1] ?? '').toUpperCase(), path, query, headers },
    length: end + 4,
  };
}
