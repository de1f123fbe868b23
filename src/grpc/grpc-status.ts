// The error catalog -> gRPC status codes, following Triton's mapping of its error classes
// (grpc_utils.cc), with one refinement the catalog allows: a full queue is RESOURCE_EXHAUSTED.

import { status, type ServiceError, Metadata } from '@grpc/grpc-js';
import type { ErrorClass, InferenceServerError } from '../errors.js';

const BY_CLASS: Readonly<Record<ErrorClass, status>> = {
  INVALID_ARG: status.INVALID_ARGUMENT,
  NOT_FOUND: status.NOT_FOUND,
  UNAVAILABLE: status.UNAVAILABLE,
  UNSUPPORTED: status.UNIMPLEMENTED,
  INTERNAL: status.INTERNAL,
  CANCELLED: status.CANCELLED,
};

export function grpcStatusOf(err: InferenceServerError): status {
  if (err.code === 'TENANT_UNKNOWN') return status.PERMISSION_DENIED;
  // Over a tenant's quota, like a full queue: the client may retry later.
  if (err.code === 'QUEUE_FULL' || err.code.startsWith('TENANT_')) return status.RESOURCE_EXHAUSTED;
  return BY_CLASS[err.errorClass];
}

/**
 * Trailing metadata that says when a retry may succeed (a tenant's quota refusals): `retry-after`
 * in whole seconds, as HTTP's header, and `retry-after-ms`; none for other errors.
 */
export function retryTrailers(
  err: InferenceServerError,
): { 'retry-after': string; 'retry-after-ms': string } | undefined {
  if (err.retryAfterS === undefined) return undefined;
  return {
    'retry-after': String(err.retryAfterS),
    'retry-after-ms': String(err.retryAfterMs ?? err.retryAfterS * 1000),
  };
}

/** The error a handler passes to grpc-js: the status code, the catalog's message, retry trailers. */
export function toServiceError(err: InferenceServerError): Partial<ServiceError> {
  const metadata = new Metadata();
  const retry = retryTrailers(err);
  if (retry !== undefined) for (const [k, v] of Object.entries(retry)) metadata.set(k, v);
  return { code: grpcStatusOf(err), details: err.message, metadata };
}
