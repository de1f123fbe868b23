// An /infer request body -> DecodedRequest, with Triton's binary tensor extension: the
// Inference-Header-Content-Length header splits the body into a JSON header and binary tensor
// bytes; a value of 0 marks a raw binary request (one tensor, no JSON at all).

import { fail } from '../errors.js';
import { BinarySection } from './binary-section.js';
import type { DecodedRequest, RawBinaryRequest } from '../protocol/inference-request.js';
import {
  decodeJsonRequest,
  parseLargeRequest,
  requestFromDocument,
  SCAN_FROM_BYTES,
} from './json-request.js';
import { parseJsonBytes } from './json-text.js';

// Decimal digits only, at most 16 of them (any body length fits; 2^53 has 16 digits). No sign, no
// exponent, no hex: `-1`, `1e3`, `0x10` and `abc` are all refused.
const DECIMAL = /^[0-9]{1,16}$/;

/**
 * The header's value as a byte count in [0, bodyLength]. Surrounding whitespace is allowed (HTTP
 * optional whitespace); anything else is BAD_HEADER_LENGTH naming the value and the body size.
 * Triton used to crash on 99999999999 (uncaught std::out_of_range); here it is a 400.
 */
export function parseHeaderLength(value: string, bodyLength: number): number {
  const trimmed = value.trim();
  const n = DECIMAL.test(trimmed) ? Number(trimmed) : NaN;
  if (!(n <= bodyLength)) {
    // The value is client text: quoted and cut short so it cannot forge anything in a log line.
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
    throw fail(
      'BAD_HEADER_LENGTH',
      `Inference-Header-Content-Length must be a decimal integer in [0, ${bodyLength}] (the body ` +
        `size), got ${shown}`,
    );
  }
  return n;
}

/**
 * Decodes an inference request body. `inferenceHeaderContentLength` is the header's value, or
 * undefined when absent (then the whole body is JSON). With a header of 0 the body is returned as a
 * raw binary request, which validation resolves against the model; otherwise the first N bytes are the JSON header and the rest is handed to
 * the inputs with `binary_data_size`, in order, as views of `body` (no copies).
 */
export function decodeInferBody(
  body: Uint8Array,
  inferenceHeaderContentLength: string | undefined,
): DecodedRequest | RawBinaryRequest {
  if (inferenceHeaderContentLength === undefined) return decodeJsonRequest(body);
  const headerLength = parseHeaderLength(inferenceHeaderContentLength, body.length);
  if (headerLength === 0) return { rawBinary: body };
  const header = body.subarray(0, headerLength);
  const binary = new BinarySection(body.subarray(headerLength), true);
  // A header below SCAN_FROM_BYTES cannot list enough tensors to cost much; a larger one has its
  // lists counted before it is parsed.
  if (headerLength >= SCAN_FROM_BYTES) return parseLargeRequest(header, binary);
  return requestFromDocument(parseJsonBytes(header), binary);
}
