// The tenant flags: which header names a tenant, their quotas, and their metric labels.

import { fail } from '../../errors.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const TENANT_FLAGS = {
  'tenant-header': {
    kind: 'string',
    help: "Header (HTTP, gRPC metadata, WebSocket upgrade) whose value is a request's tenant name: use a tenant id, not a secret (off)",
  },
  'quota-file': {
    kind: 'string',
    help: 'JSON file of per-tenant quotas (rps, burst, in_flight, queue, share); reloaded on SIGHUP and on change; needs --tenant-header (none)',
  },
  'tenant-metrics-max': {
    kind: 'uint',
    help: 'Tenants with their own label in infernode_tenant_* metrics; the rest are "other" (32)',
  },
} as const satisfies FlagTable;

type TenantOptions = Pick<ServerOptions, 'tenantHeader' | 'quotaFile' | 'tenantMetricsMax'>;

export function tenantOptions(read: FlagReader<keyof typeof TENANT_FLAGS>): TenantOptions {
  return {
    tenantHeader: tenantHeader(read.last('tenant-header'), read.last('quota-file')),
    quotaFile: read.last('quota-file'),
    tenantMetricsMax: read.uint('tenant-metrics-max', DEFAULT_OPTIONS.tenantMetricsMax, 10_000),
  };
}

/** --tenant-header: an HTTP header name, lower-cased; --quota-file needs it. */
function tenantHeader(name: string | undefined, quotaFile: string | undefined): string | undefined {
  if (name === undefined) {
    if (quotaFile !== undefined) throw fail('BAD_REQUEST', '--quota-file needs --tenant-header');
    return undefined;
  }
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/.test(name) || name.startsWith(':')) {
    throw fail(
      'BAD_REQUEST',
      `--tenant-header: expected a header name, got '${name.slice(0, 128)}'`,
    );
  }
  return name.toLowerCase();
}
