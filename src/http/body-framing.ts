// How a request says its body is framed (Content-Length, chunked, or none), decided once from the
// headers before a single body byte is read, and the size-limit error both adapters send.
//
// Both adapters apply these rules on top of their own parser so that the two behave the same: the
// uWS 20.30 parser takes the first of two conflicting Content-Length headers and calls the route for
// an unknown Transfer-Encoding without ever delivering a body, so the checks here are not redundant.

import { fail, type InferenceServerError } from '../errors.js';

export type BodyFraming =
  | { readonly kind: 'none' }
  /** Exactly `length` bytes follow the headers (already checked against the limit). */
  | { readonly kind: 'length'; readonly length: number }
  /** `Transfer-Encoding: chunked`: the size is only known at the end; counted as it arrives. */
  | { readonly kind: 'chunked' };

const NO_BODY: BodyFraming = Object.freeze({ kind: 'none' });
const CHUNKED: BodyFraming = Object.freeze({ kind: 'chunked' });

// Only plain decimal digits: "+5", "5.0", " 5" or "5, 5" (two joined headers) are refused rather than
// guessed at, since a front proxy may have read them differently (request smuggling).
const DECIMAL = /^[0-9]+$/;

/**
 * What a body is, for the size-limit wording: a raw binary input (`Inference-Header-Content-Length:
 * 0`), a JSON header followed by binary tensor data (any other value of that header), or JSON.
 */
export type BodyKind = 'raw' | 'binary' | 'json';

export function bodyKind(header: (name: string) => string | undefined): BodyKind {
  const headerLength = header('inference-header-content-length')?.trim();
  if (headerLength === undefined) return 'json';
  return headerLength === '0' ? 'raw' : 'binary';
}

/**
 * The error for a body over `--http-max-input-size`, in Triton's words (http_server.cc); Triton
 * reports it as INVALID_ARG (400). `size` may be the Content-Length digits as sent, so a huge value
 * is reported exactly, not rounded.
 */
export function bodyTooLarge(
  size: number | string,
  maxBodyBytes: number,
  kind: BodyKind,
): InferenceServerError {
  const advice = 'Use --http-max-input-size to increase the limit.';
  const limit = `the maximum allowed input size of ${maxBodyBytes} bytes. ${advice}`;
  switch (kind) {
    case 'raw':
      return fail(
        'BODY_TOO_LARGE',
        `Raw input has a byte_size (${size} bytes) that exceeds the maximum allowed value of ` +
          `${maxBodyBytes} bytes. ${advice}`,
      );
    case 'binary':
      // Triton says "request JSON size" here too; the body is not JSON, so this says what it is.
      return fail(
        'BODY_TOO_LARGE',
        `request size of ${size} bytes (a JSON header and binary tensor data) exceeds ${limit}`,
      );
    case 'json':
      return fail('BODY_TOO_LARGE', `request JSON size of ${size} bytes exceeds ${limit}`);
  }
}

/**
 * The error for a request body that does not fit the process's client-memory budget
 * (--client-memory-budget, memory/client-budget.ts): 503 with Retry-After (error-reply.ts), as the
 * condition is the server's and passes once other clients' bodies and answers are gone.
 */
export function clientMemoryFull(limitBytes: number, bodyBytes: number): InferenceServerError {
  return fail(
    'CLIENT_MEMORY_FULL',
    `the server's memory for clients is full (--client-memory-budget ${limitBytes} bytes, held by ` +
      `request bodies and answers of other clients): no room for ${bodyBytes} bytes of this ` +
      'request body; retry later',
  );
}

/**
 * Reads the framing headers and rejects, before anything is allocated, a body that cannot be
 * accepted. `header` takes a lower-case name; repeated headers arrive joined with ", ".
 * Throws `InferenceServerError` (BAD_REQUEST or BODY_TOO_LARGE).
 */
export function bodyFraming(
  header: (name: string) => string | undefined,
  maxBodyBytes: number,
): BodyFraming {
  const transferEncoding = header('transfer-encoding');
  const contentLength = header('content-length');

  if (transferEncoding !== undefined) {
    // With both headers, Transfer-Encoding decides and Content-Length is ignored, as Triton does
    // (RFC 9112 §6.3); the connection then closes after the reply (§6.1). Neither HTTP library lets
    // such a request reach a route: only node's takeover (node/node-framing-takeover.ts) gets here
    // with both, and it always closes.
    // Only "chunked" alone: compressed transfer codings are not supported, and anything else would
    // leave the body length undefined.
    if (transferEncoding.trim().toLowerCase() !== 'chunked') {
      throw fail(
        'BAD_REQUEST',
        `unsupported Transfer-Encoding: expected "chunked", got "${transferEncoding}"`,
      );
    }
    return CHUNKED;
  }

  if (contentLength === undefined) return NO_BODY;
  if (!DECIMAL.test(contentLength)) {
    throw fail(
      'BAD_REQUEST',
      `invalid Content-Length: expected one decimal number, got "${contentLength}"`,
    );
  }
  // Compare as a number only when it is exact: a 20-digit value is over any sane limit anyway, and
  // Number() of it would round.
  const length = contentLength.length > 15 ? Number.POSITIVE_INFINITY : Number(contentLength);
  if (length > maxBodyBytes) {
    throw bodyTooLarge(contentLength.replace(/^0+(?=\d)/, ''), maxBodyBytes, bodyKind(header));
  }
  return length === 0 ? NO_BODY : { kind: 'length', length };
}
