// Which tenant a request is admitted for, and that tenant's share of a model's queue. The data
// plane sets it from --tenant-header; the request queue (request-queue.ts) dequeues fairly across
// the tenants it sees, weighted by `weight`.

export interface TenantTag {
  readonly name: string;
  readonly weight: number;
}
