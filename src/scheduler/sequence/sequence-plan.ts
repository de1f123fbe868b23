// Which queued requests of a sequence model run together next: pure functions of the queue, the
// sequences' slots and the time, one per strategy, so each rule is unit-tested without workers.
//
// Both take only a sequence's oldest queued request (its head), and only while none of its requests
// is running: a sequence's requests run one at a time, in order. Sequences waiting in the backlog
// (no slot yet) are not candidates.
// - direct: slots are rows of a lane (one lane per instance, max_batch_size rows each). A batch is
//   one lane's ready heads, at their slot rows; it waits up to max_queue_delay_microseconds for
//   minimum_slot_utilization of the lane's occupied slots to have a request.
// - oldest: the oldest heads across all candidate sequences, up to max_batch_size, compacted; it
//   waits up to max_queue_delay_microseconds for a preferred or full batch.

import type { BatchPlan, PlanContext } from '../batch-plan.js';
import type { QueuedRequest } from '../scheduling-strategy.js';

/** What the planner reads of a sequence. */
export interface PlanSequence {
  readonly slot: number;
  readonly running: boolean;
}

export interface DirectPlanSettings {
  /** Rows per lane (max_batch_size, or 1 without batching). */
  readonly rowsPerLane: number;
  readonly maxQueueDelayNs: number;
  readonly minimumSlotUtilization: number;
  /** Lanes with a run in flight. */
  readonly busyLanes: ReadonlySet<number>;
  /** Slots of the lane held by a sequence. */
  occupied(lane: number): number;
}

export interface OldestPlanSettings {
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  readonly maxQueueDelayNs: number;
}

/** Queue indices of each runnable sequence's head, in service order. */
function heads(
  queue: readonly QueuedRequest[],
  sequenceOf: (q: QueuedRequest) => PlanSequence | undefined,
): number[] {
  const seen = new Set<PlanSequence>();
  const out: number[] = [];
  queue.forEach((q, i) => {
    const s = sequenceOf(q);
    if (s === undefined || seen.has(s)) return;
    seen.add(s);
    if (s.slot >= 0 && !s.running) out.push(i);
  });
  return out;
}

/** Only heads that can share a run with the oldest one (same input names, types and dims). */
function sameKey(queue: readonly QueuedRequest[], idx: readonly number[]): number[] {
  const key = queue[idx[0] as number]?.key;
  return idx.filter((i) => queue[i]?.key === key);
}

export function planDirect(
  queue: readonly QueuedRequest[],
  ctx: PlanContext,
  sequenceOf: (q: QueuedRequest) => PlanSequence | undefined,
  s: DirectPlanSettings,
): BatchPlan {
  const byLane = new Map<number, number[]>();
  for (const i of heads(queue, sequenceOf)) {
    const lane = Math.floor(
      (sequenceOf(queue[i] as QueuedRequest) as PlanSequence).slot / s.rowsPerLane,
    );
    if (s.busyLanes.has(lane)) continue;
    const list = byLane.get(lane);
    if (list === undefined) byLane.set(lane, [i]);
    else list.push(i);
  }
  // The lane whose oldest head has waited longest (heads are in service order).
  let best: number[] | undefined;
  let bestLane = -1;
  for (const [lane, list] of byLane) {
    if (best === undefined || (list[0] as number) < (best[0] as number)) {
      best = list;
      bestLane = lane;
    }
  }
  if (best === undefined) return { kind: 'empty' };
  const take = sameKey(queue, best);
  const oldestNs = (queue[take[0] as number] as QueuedRequest).enqueuedNs;
  const needed = Math.ceil(s.minimumSlotUtilization * s.occupied(bestLane));
  if (take.length < needed && !ctx.draining && s.maxQueueDelayNs > 0) {
    const untilNs = oldestNs + s.maxQueueDelayNs;
    if (ctx.nowNs < untilNs) return { kind: 'wait', untilNs };
  }
  return { kind: 'dispatch', take, rows: take.length };
}

export function planOldest(
  queue: readonly QueuedRequest[],
  ctx: PlanContext,
  sequenceOf: (q: QueuedRequest) => PlanSequence | undefined,
  s: OldestPlanSettings,
): BatchPlan {
  const all = heads(queue, sequenceOf);
  if (all.length === 0) return { kind: 'empty' };
  const max = Math.max(s.maxBatchSize, 1);
  const take = sameKey(queue, all).slice(0, max);
  const full = take.length === max || s.preferredBatchSizes.includes(take.length);
  if (!full && !ctx.draining && s.maxQueueDelayNs > 0) {
    const untilNs = (queue[take[0] as number] as QueuedRequest).enqueuedNs + s.maxQueueDelayNs;
    if (ctx.nowNs < untilNs) return { kind: 'wait', untilNs };
  }
  return { kind: 'dispatch', take, rows: take.length };
}
