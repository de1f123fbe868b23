// Which queued requests form the next batch, and whether to send it now or wait: a pure function
// of the queue's contents, the time and the idle instances, so every batching rule is unit-tested
// without timers or workers. The shell asks it, through `dynamic-batcher.ts`, each time it could
// dispatch.

/** What the planner needs to know about one queued request. */
export interface BatchCandidate {
  /** Rows the request contributes (its batch dim). */
  readonly rows: number;
  /** Bytes its inputs occupy in shared memory. */
  readonly bytes: number;
  /** Requests batch together only when their keys (names, datatypes, non-batch dims) match. */
  readonly key: string;
  readonly enqueuedNs: number;
}

export interface BatchLimits {
  /** 0: the model has no batch dim; every request runs alone. */
  readonly maxBatchSize: number;
  /** Preferred batch sizes, any order. */
  readonly preferredBatchSizes: readonly number[];
  /** max_queue_delay_microseconds in ns; 0 = send whatever is queued when an instance is free. */
  readonly maxQueueDelayNs: number;
  /** Cap on one batch's input bytes; the first request is always taken, whatever its size. */
  readonly maxBatchBytes: number;
}

export interface PlanContext {
  readonly nowNs: number;
  /** Instances free to run a batch now (>= 1 when the planner is asked). */
  readonly idleInstances: number;
  /** Draining for shutdown: nothing waits for the delay any more. */
  readonly draining: boolean;
}

export type BatchPlan =
  /** Send the candidates at these indices (ascending: service order) as one batch. */
  | { readonly kind: 'dispatch'; readonly take: readonly number[]; readonly rows: number }
  /** Nothing to send before `untilNs`, when the oldest request's delay runs out. */
  | { readonly kind: 'wait'; readonly untilNs: number }
  | { readonly kind: 'empty' };

/**
 * Plans the next batch from `queue` (service order: priority, then arrival or, among the tenants
 * of a level, fair order).
 *
 * 1. The batch is built around the first request: later requests with the same key join it in
 *    order, while they fit under max_batch_size rows and the byte cap (a request that does not
 *    fit is skipped, not a barrier; requests with another key form their own batch later).
 * 2. Keeping every instance busy: when several instances are idle, the compatible rows are shared
 *    between them (ceil(rows / idle) each), so two idle instances get two batches instead of one
 *    big batch and an idle instance — the compute runs in parallel and the lone-request latency
 *    does not grow.
 * 3. Sent at once: a full batch (max_batch_size rows); else the largest preferred size formed
 *    along the way (its prefix is sent, the rest stays queued); else, once the first request has
 *    waited max_queue_delay (or the delay is 0, or the server is draining), everything gathered.
 *    Otherwise wait until that delay runs out.
 */
export function planBatch(
  queue: readonly BatchCandidate[],
  limits: BatchLimits,
  ctx: PlanContext,
): BatchPlan {
  const head = queue[0];
  if (head === undefined) return { kind: 'empty' };
  if (limits.maxBatchSize === 0) return { kind: 'dispatch', take: [0], rows: head.rows };

  let compatibleRows = 0;
  for (const c of queue) if (c.key === head.key) compatibleRows += c.rows;
  const share =
    ctx.idleInstances > 1 ? Math.ceil(compatibleRows / ctx.idleInstances) : compatibleRows;
  const limit = Math.min(limits.maxBatchSize, Math.max(share, head.rows));
  const preferred = new Set(limits.preferredBatchSizes);

  const take: number[] = [];
  let rows = 0;
  let bytes = 0;
  let bestPrefix = 0;
  let bestRows = 0;
  for (let i = 0; i < queue.length && rows < limit; i++) {
    const c = queue[i] as BatchCandidate;
    if (c.key !== head.key) continue;
    if (take.length > 0 && (rows + c.rows > limit || bytes + c.bytes > limits.maxBatchBytes)) {
      continue;
    }
    take.push(i);
    rows += c.rows;
    bytes += c.bytes;
    if (preferred.has(rows)) {
      bestPrefix = take.length;
      bestRows = rows;
    }
  }

  if (rows >= limits.maxBatchSize) return { kind: 'dispatch', take, rows };
  if (bestPrefix > 0) return { kind: 'dispatch', take: take.slice(0, bestPrefix), rows: bestRows };
  const deadline = head.enqueuedNs + limits.maxQueueDelayNs;
  if (limits.maxQueueDelayNs === 0 || ctx.draining || ctx.nowNs >= deadline) {
    return { kind: 'dispatch', take, rows };
  }
  return { kind: 'wait', untilNs: deadline };
}
