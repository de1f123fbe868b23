// The tenant flags: which header names a tenant, their quotas, and their metric labels.

import type { FlagTable } from './flag-spec.js';

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
