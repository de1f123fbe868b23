// Triton's queue policy, resolved once from the frozen `dynamic_batching` config: which priority
// level a request lands in, that level's ModelQueuePolicy, and the deadline a request gets. Pure
// functions; `request-queue.ts` applies them.

import type { DynamicBatchingConfig, QueuePolicyConfig } from '../config/model-config.js';

export type TimeoutAction = 'REJECT' | 'DELAY';

export interface QueuePolicy {
  /** What happens at a request's deadline: answer 503 at once, or serve it after the others. */
  readonly timeoutAction: TimeoutAction;
  /** 0 = no timeout. */
  readonly defaultTimeoutUs: number;
  /** A request's `timeout` parameter may lower (never raise) the default. */
  readonly allowTimeoutOverride: boolean;
  /** Requests the level may hold (queued, not executing); 0 = unbounded. */
  readonly maxQueueSize: number;
}

/** ModelQueuePolicy's proto defaults: what a level without a configured policy gets. */
export const DEFAULT_QUEUE_POLICY: QueuePolicy = Object.freeze({
  timeoutAction: 'REJECT',
  defaultTimeoutUs: 0,
  allowTimeoutOverride: false,
  maxQueueSize: 0,
});

export interface PriorityPlan {
  /** `priority_levels`; 0 = priorities are ignored and every request shares one level. */
  readonly levels: number;
  /** Level a request with priority 0 (or out of range) goes to; 1 when levels is 0. */
  readonly defaultLevel: number;
  /** Policy of levels without an entry in `priority_queue_policy`. */
  readonly defaultPolicy: QueuePolicy;
  /** Per-level overrides, keyed by level (1 = highest priority). */
  readonly perLevel: ReadonlyMap<number, QueuePolicy>;
}

export function queuePolicy(c: QueuePolicyConfig | undefined): QueuePolicy {
  if (c === undefined) return DEFAULT_QUEUE_POLICY;
  return Object.freeze({
    timeoutAction: c.timeout_action,
    defaultTimeoutUs: c.default_timeout_microseconds,
    allowTimeoutOverride: c.allow_timeout_override,
    maxQueueSize: c.max_queue_size,
  });
}

/**
 * The priority plan of a config (already validated: default level and map keys are in range).
 * Levels are kept sparse: `priority_levels` may be as large as 2^64-1, and only levels that
 * requests actually use ever get a queue.
 */
export function priorityPlan(db: DynamicBatchingConfig | undefined): PriorityPlan {
  const levels = db?.priority_levels ?? 0;
  const perLevel = new Map<number, QueuePolicy>();
  if (db !== undefined && levels > 0) {
    for (const [key, p] of Object.entries(db.priority_queue_policy)) {
      perLevel.set(Number(key), queuePolicy(p));
    }
  }
  return Object.freeze({
    levels,
    defaultLevel: levels > 0 ? (db?.default_priority_level ?? 1) : 1,
    defaultPolicy: queuePolicy(db?.default_queue_policy),
    perLevel,
  });
}

/**
 * The level serving a request's `priority` parameter. As Triton's InferenceRequest::SetPriority:
 * 0, or a value past `priority_levels`, means the default level; with no levels configured every
 * request shares level 1.
 */
export function levelOf(plan: PriorityPlan, priority: number): number {
  if (plan.levels === 0 || priority === 0 || priority > plan.levels) return plan.defaultLevel;
  return priority;
}

export function policyOf(plan: PriorityPlan, level: number): QueuePolicy {
  return plan.perLevel.get(level) ?? plan.defaultPolicy;
}

/**
 * The queue timeout a request gets, in µs (0 = none). As Triton's PolicyQueue::Enqueue: the
 * level's default, which a request's own `timeout` may only lower, and only when the policy allows
 * it. With no default timeout (0) there is nothing to lower, so the request's value is ignored.
 */
export function effectiveTimeoutUs(policy: QueuePolicy, requestTimeoutUs: number): number {
  const base = policy.defaultTimeoutUs;
  if (policy.allowTimeoutOverride && requestTimeoutUs !== 0 && requestTimeoutUs < base) {
    return requestTimeoutUs;
  }
  return base;
}
