// A uWS request's headers in the form every adapter hands on (lower-case names, repeats joined with
// ", "), copied at once: uWS's `HttpRequest` dies when its callback returns.

import type { HttpRequest } from '@trufflesuite/uws-js-unofficial';
import { addHeader } from '../http-call.js';

export function readHeaders(req: HttpRequest): Map<string, string> {
  const headers = new Map<string, string>();
  req.forEach((name, value) => addHeader(headers, name, value));
  return headers;
}
