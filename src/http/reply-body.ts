// An `HttpReply` in the form both adapters write: a status line, the handler's headers minus the
// framing ones the adapter owns, and the body as a list of byte chunks with their total; and the
// release hook that tells the handler when the adapter no longer holds the body.

import { STATUS_CODES } from 'node:http';
import { fail } from '../errors.js';
import { errorReply } from './error-reply.js';
import type { HttpReply } from './front-end.js';

export interface WireReply {
  readonly status: number;
  /** "200 OK": uWS writes the status line verbatim, so the reason phrase is ours to supply. */
  readonly statusLine: string;
  readonly headers: readonly (readonly [name: string, value: string])[];
  /** Never concatenated: binary replies are a JSON header plus views of tensor memory. */
  readonly chunks: readonly Uint8Array[];
  readonly totalBytes: number;
}

// The adapter writes Content-Length from the chunks; a handler's own framing headers could only
// contradict it (and a duplicate Content-Length makes clients reject the response).
const ADAPTER_OWNED_HEADERS = new Set(['content-length', 'transfer-encoding']);

// RFC 9110 token characters for names; values without CR, LF or NUL. uWS writes headers verbatim,
// so without this check a handler could split the response (header injection).
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Throws INTERNAL for a reply no HTTP response can carry (bad status or header). */
export function toWireReply(reply: HttpReply): WireReply {
  if (!Number.isInteger(reply.status) || reply.status < 200 || reply.status > 599) {
    throw fail('INTERNAL', `reply status must be an integer in 200..599, got ${reply.status}`);
  }
  const chunks = bodyChunks(reply.body);
  let totalBytes = 0;
  for (const chunk of chunks) totalBytes += chunk.byteLength;
  const headers: (readonly [string, string])[] = [];
  if (reply.headers !== undefined) {
    for (const [name, value] of Object.entries(reply.headers)) {
      if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) {
        throw fail('INTERNAL', `reply header ${JSON.stringify(name)} is not a valid HTTP header`);
      }
      if (!ADAPTER_OWNED_HEADERS.has(name.toLowerCase())) headers.push([name, value]);
    }
  }
  return {
    status: reply.status,
    statusLine: `${reply.status} ${STATUS_CODES[reply.status] ?? 'Unknown'}`,
    headers,
    chunks,
    totalBytes,
  };
}

function bodyChunks(body: HttpReply['body']): readonly Uint8Array[] {
  if (typeof body === 'string') return body.length === 0 ? [] : [Buffer.from(body, 'utf8')];
  if (body instanceof Uint8Array) return body.byteLength === 0 ? [] : [body];
  // Empty chunks are dropped so the writers never issue a zero-length write (uWS reports a
  // zero-length tryEnd as backpressure when earlier header bytes are still queued).
  return body.filter((chunk) => chunk.byteLength > 0);
}

/**
 * The wire form of `reply`, or of a plain 500 if the handler produced a reply HTTP cannot carry (a
 * handler bug: the client gets the generic message, not the details).
 */
export function wireOrFailure(reply: HttpReply): WireReply {
  try {
    return toWireReply(reply);
  } catch {
    return toWireReply(errorReply(fail('INTERNAL')));
  }
}

/** Calls the reply's release hook exactly once, swallowing nothing: a throwing hook is a bug. */
export function releaseOnce(reply: HttpReply): (delivered: boolean) => void {
  let released = false;
  return (delivered) => {
    if (released) return;
    released = true;
    reply.onFinished?.(delivered);
  };
}
