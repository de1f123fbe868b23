// Triton's HTTP error reply, `{"error": "<message>"}` with the catalogue's status: the one form every
// HTTP error takes, whether the routes, an adapter (framing, body size) or a throwing handler made it.

import { toServerError, type InferenceServerError } from '../errors.js';
import type { HttpReply } from './front-end.js';

// Shared and frozen: every reply may carry the same headers object (adapters only read it).
const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' });
/** A full client-memory budget passes as other clients' bytes go: worth retrying in a second. */
const RETRY_HEADERS = Object.freeze({ 'content-type': 'application/json', 'retry-after': '1' });

/** The catalogue's status, and the message as `{"error": ...}`. */
export function errorReply(error: InferenceServerError): HttpReply {
  // Over a tenant's quota: when the tenant's bucket has a token again.
  if (error.retryAfterS !== undefined) {
    return {
      status: error.status,
      headers: { 'content-type': 'application/json', 'retry-after': String(error.retryAfterS) },
      body: JSON.stringify({ error: error.message }),
    };
  }
  return {
    status: error.status,
    headers: error.code === 'CLIENT_MEMORY_FULL' ? RETRY_HEADERS : JSON_HEADERS,
    body: JSON.stringify({ error: error.message }),
  };
}

/** The reply for a handler that threw instead of returning an error reply: never leaks the cause. */
export function handlerFailureReply(thrown: unknown): HttpReply {
  return errorReply(toServerError(thrown));
}
