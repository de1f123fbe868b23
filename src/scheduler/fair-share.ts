// Fair dequeuing across tenants inside one priority level: start-time fair queuing. Each request
// gets a virtual start tag when it is queued, max(the level's virtual time, the finish tag of its
// tenant's previous request); its tenant's finish tag then moves on by rows / weight. The level
// serves its on-time requests in tag order (ties in arrival order), and its virtual time is the
// largest tag dispatched so far. So a tenant that floods the queue gets tags far ahead, and a
// tenant arriving later slots in between them: tenants with weights 2:1 get rows served about 2:1,
// and one tenant's own requests keep their arrival order.
//
// A level only builds this state once a second tenant queues in it (request-queue.ts): a level
// holding one tenant's requests (or untagged ones) stays a plain FIFO.

import type { TenantTag } from './tenant-tag.js';

/** The name of the implicit tenant of requests without one. */
export const NO_TENANT = '';

/** A queued request as fair queuing sees it. */
export interface FairItem {
  readonly tenant: TenantTag | undefined;
  /** Rows it brings: what serving it costs its tenant. */
  readonly cost: number;
  /** Its virtual start tag (0 until the level turns fair). */
  tag: number;
}

export class FairShare {
  /** The largest start tag dispatched from the level. */
  private virtualTime = 0;
  /** Per tenant name: the finish tag of its last queued request. */
  private readonly finish = new Map<string, number>();

  /** Tags `item` (queued now, after every item already tagged) and charges its tenant. */
  stamp(item: FairItem): void {
    const name = item.tenant?.name ?? NO_TENANT;
    const start = Math.max(this.virtualTime, this.finish.get(name) ?? 0);
    this.finish.set(name, start + item.cost / weightOf(item.tenant));
    item.tag = start;
  }

  /** `item` was dispatched: the level's virtual time reaches its tag. */
  served(item: FairItem): void {
    if (item.tag > this.virtualTime) this.virtualTime = item.tag;
  }

  /** Inserts `item` into `list` (ascending tags) after every item with a tag <= its own. */
  static insert<S extends FairItem>(list: S[], item: S): void {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((list[mid] as S).tag <= item.tag) lo = mid + 1;
      else hi = mid;
    }
    if (lo === list.length) list.push(item);
    else list.splice(lo, 0, item);
  }
}

/** A tenant's weight; untagged requests, and a weight that is not a positive number, count as 1. */
function weightOf(tenant: TenantTag | undefined): number {
  const w = tenant?.weight;
  return w !== undefined && w > 0 && Number.isFinite(w) ? w : 1;
}
