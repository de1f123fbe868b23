// The tenant as a log record's field (--tenant-header): the header's value, as the metrics and spans
// show it, capped so a client cannot write a long line through it. Nothing without the flag.

import type { HttpCall } from '../http/front-end.js';

/** The same for a tenant read already (gRPC metadata, a WebSocket's upgrade request). */
export function tenantLogField(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant: tenant.slice(0, 128) };
}

export function tenantField(
  options: { readonly tenantHeader?: string | undefined },
  call: HttpCall,
): { tenant?: string } {
  if (options.tenantHeader === undefined) return {};
  return { tenant: (call.header(options.tenantHeader) ?? '').slice(0, 128) };
}
