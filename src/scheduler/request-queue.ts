// The scheduler shell's queue: one FIFO per priority level (level 1 served first), each under its
// level's Triton queue policy — max_queue_size rejects at once, and every deadline is a timer, so a
// timed-out request is answered at its deadline rather than when the running batch ends (the
// lazy check Triton does). Time and timers come from the injected clock. Within a level, requests
// of several tenants are served fairly by weight (fair-share.ts); a level that holds one tenant's
// requests, or only untagged ones, is served in arrival order.

import { fail } from '../errors.js';
import { FairShare, NO_TENANT, type FairItem } from './fair-share.js';
import {
  effectiveTimeoutUs,
  levelOf,
  policyOf,
  type PriorityPlan,
  type QueuePolicy,
} from './queue-policy.js';
import type { SchedulerClock, TimerHandle } from './scheduler-clock.js';
import type { TenantTag } from './tenant-tag.js';

/** A queued request as the queue's owner sees it. */
export interface QueueEntry<T> {
  readonly value: T;
  /** Priority level serving it (1 = highest). */
  readonly level: number;
  readonly enqueuedNs: number;
  /** Its deadline passed under a DELAY policy: it is served after its level's other requests. */
  readonly delayed: boolean;
}

export interface QueueEvents<T> {
  /** A REJECT deadline passed: the entry has already left the queue; answer it now. */
  timedOut(entry: QueueEntry<T>): void;
  /** A DELAY deadline passed: the entry moved behind its level's on-time requests. */
  delayed(entry: QueueEntry<T>): void;
}

interface Slot<T> extends QueueEntry<T>, FairItem {
  delayed: boolean;
  queued: boolean;
  timer: TimerHandle | undefined;
}

class Level<T> {
  /**
   * On-time requests in arrival order (in fair-share tag order once `fair` is set), then those past
   * a DELAY deadline in the order they expired.
   */
  readonly onTime: Slot<T>[] = [];
  readonly late: Slot<T>[] = [];
  /** Set once a second tenant queues here; until the level empties, it is served fairly. */
  fair: FairShare | undefined;
  /**
   * @param sole the tenant of the request that opened the level: until another tenant's request
   *   comes, nothing is tagged
   */
  constructor(
    readonly policy: QueuePolicy,
    readonly sole: string,
  ) {}
  get size(): number {
    return this.onTime.length + this.late.length;
  }
}

export class RequestQueue<T> {
  private readonly levels = new Map<number, Level<T>>();
  /** Levels that hold requests, ascending (so highest priority first). */
  private readonly order: number[] = [];
  private count = 0;

  constructor(
    private readonly plan: PriorityPlan,
    private readonly clock: SchedulerClock,
    private readonly events: QueueEvents<T>,
  ) {}

  /** Requests queued (not executing), over all levels. */
  get size(): number {
    return this.count;
  }

  /**
   * Queues `value` at the level its `priority` maps to, with its deadline armed. Throws QUEUE_FULL
   * when that level already holds max_queue_size requests; nothing is queued then. `tenant` (none:
   * the implicit tenant) and `cost` (its rows) place it among other tenants' requests.
   */
  push(value: T, priority: number, timeoutUs: number, tenant?: TenantTag, cost = 1): QueueEntry<T> {
    const levelNo = levelOf(this.plan, priority);
    const policy = policyOf(this.plan, levelNo);
    const existing = this.levels.get(levelNo);
    if (policy.maxQueueSize !== 0 && (existing?.size ?? 0) >= policy.maxQueueSize) {
      throw fail(
        'QUEUE_FULL',
        `Exceeds maximum queue size: priority level ${levelNo} holds ${policy.maxQueueSize} ` +
          `queued requests, its max_queue_size`,
      );
    }
    const tenantName = tenant?.name ?? NO_TENANT;
    const level = existing ?? this.addLevel(levelNo, policy, tenantName);
    const slot: Slot<T> = {
      value,
      level: levelNo,
      enqueuedNs: this.clock.nowNs(),
      delayed: false,
      queued: true,
      timer: undefined,
      tenant,
      cost,
      tag: 0,
    };
    const timeout = effectiveTimeoutUs(policy, timeoutUs);
    if (timeout > 0) slot.timer = this.clock.setTimer(timeout * 1000, () => this.expire(slot));
    if (level.fair === undefined && tenantName === level.sole) {
      level.onTime.push(slot);
    } else {
      this.pushFair(level, slot);
    }
    this.count += 1;
    return slot;
  }

  /** Withdraws a queued entry (its client went away). False if it is no longer queued. */
  remove(entry: QueueEntry<T>): boolean {
    const slot = entry as Slot<T>;
    if (!slot.queued) return false;
    this.unlink(slot);
    return true;
  }

  /** Removes entries that are being dispatched, in one pass per level. */
  take(entries: readonly QueueEntry<T>[]): void {
    // One entry (every run of the direct path): unlinking it alone is cheaper than the filter pass.
    if (entries.length === 1) {
      const slot = entries[0] as Slot<T>;
      if (!slot.queued) throw fail('INTERNAL', 'a dispatched request was no longer queued');
      // Tags are 0 until a level turns fair, and a tag of 0 never moves its virtual time.
      if (slot.tag > 0) this.levels.get(slot.level)?.fair?.served(slot);
      this.unlink(slot);
      return;
    }
    const touched = new Set<number>();
    for (const e of entries) {
      const slot = e as Slot<T>;
      if (!slot.queued) throw fail('INTERNAL', 'a dispatched request was no longer queued');
      slot.queued = false;
      slot.timer?.cancel();
      touched.add(slot.level);
    }
    for (const levelNo of touched) {
      const level = this.levels.get(levelNo) as Level<T>;
      const fair = level.fair;
      if (fair !== undefined) {
        for (const e of entries) if (e.level === levelNo) fair.served(e as Slot<T>);
      }
      const before = level.size;
      filterInPlace(level.onTime, (s) => s.queued);
      filterInPlace(level.late, (s) => s.queued);
      this.count -= before - level.size;
      if (level.size === 0) this.dropLevel(levelNo);
    }
  }

  /**
   * Every queued entry in service order: level 1 first; in a level, on-time (arrival order, or
   * fair-share order among tenants) before late.
   */
  ordered(): QueueEntry<T>[] {
    const out: QueueEntry<T>[] = [];
    for (const levelNo of this.order) {
      const level = this.levels.get(levelNo) as Level<T>;
      for (const s of level.onTime) out.push(s);
      for (const s of level.late) out.push(s);
    }
    return out;
  }

  private expire(slot: Slot<T>): void {
    slot.timer = undefined;
    if (!slot.queued) return;
    const level = this.levels.get(slot.level) as Level<T>;
    switch (level.policy.timeoutAction) {
      case 'REJECT':
        this.unlink(slot);
        this.events.timedOut(slot);
        return;
      case 'DELAY':
        removeFrom(level.onTime, slot);
        slot.delayed = true;
        level.late.push(slot);
        this.events.delayed(slot);
        return;
    }
  }

  private unlink(slot: Slot<T>): void {
    slot.queued = false;
    slot.timer?.cancel();
    slot.timer = undefined;
    const level = this.levels.get(slot.level) as Level<T>;
    if (!removeFrom(level.onTime, slot)) removeFrom(level.late, slot);
    this.count -= 1;
    if (level.size === 0) this.dropLevel(slot.level);
  }

  /**
   * Queues `slot` by its fair-share tag. The first request of a second tenant turns the level fair:
   * its queued requests (all one tenant's, in arrival order) are tagged first, as if they had been
   * tagged on arrival.
   */
  private pushFair(level: Level<T>, slot: Slot<T>): void {
    let fair = level.fair;
    if (fair === undefined) {
      fair = level.fair = new FairShare();
      for (const s of level.onTime) fair.stamp(s);
    }
    fair.stamp(slot);
    FairShare.insert(level.onTime, slot);
  }

  private addLevel(levelNo: number, policy: QueuePolicy, tenant: string): Level<T> {
    const level = new Level<T>(policy, tenant);
    this.levels.set(levelNo, level);
    let i = this.order.length;
    while (i > 0 && (this.order[i - 1] as number) > levelNo) i--;
    this.order.splice(i, 0, levelNo);
    return level;
  }

  /**
   * Empty levels are dropped: `priority` comes from clients and `priority_levels` may be huge, so
   * the map holds only levels with requests in them.
   */
  private dropLevel(levelNo: number): void {
    this.levels.delete(levelNo);
    removeFrom(this.order, levelNo);
  }
}

function removeFrom<S>(list: S[], item: S): boolean {
  const i = list.indexOf(item);
  if (i === -1) return false;
  list.splice(i, 1);
  return true;
}

function filterInPlace<S>(list: S[], keep: (s: S) => boolean): void {
  let w = 0;
  for (const s of list) if (keep(s)) list[w++] = s;
  list.length = w;
}
