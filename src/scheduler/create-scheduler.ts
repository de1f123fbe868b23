// Picks a model version's scheduler from its frozen config: the dynamic batcher when the config
// has `dynamic_batching`, the direct (one request per run) strategy otherwise — as Triton does.

import type { ModelConfig } from '../config/model-config.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import { DirectScheduler } from './direct-scheduler.js';
import { DynamicBatcher, type BatcherSettings } from './dynamic-batcher.js';
import type { ExecutionTarget } from './execution-target.js';
import { priorityPlan } from './queue-policy.js';
import type { SchedulerClock } from './scheduler-clock.js';
import type { Scheduler } from './scheduler.js';

export interface SchedulerOptions {
  /** Cap on one request's (direct) or one batch's (dynamic) input block, in bytes. */
  readonly maxBlockBytes?: number;
  readonly clock?: SchedulerClock;
}

/** The batcher settings of a config with `dynamic_batching`; undefined without it. */
export function batcherSettings(config: ModelConfig): BatcherSettings | undefined {
  const db = config.dynamic_batching;
  if (db === undefined) return undefined;
  return Object.freeze({
    maxBatchSize: config.max_batch_size,
    preferredBatchSizes: Object.freeze([...db.preferred_batch_size]),
    maxQueueDelayUs: db.max_queue_delay_microseconds,
    preserveOrdering: db.preserve_ordering,
    priorities: priorityPlan(db),
  });
}

export function createScheduler(
  config: ModelConfig,
  target: ExecutionTarget,
  reporter: ModelReporter,
  options: SchedulerOptions = {},
): Scheduler {
  const settings = batcherSettings(config);
  if (settings === undefined) {
    return new DirectScheduler(target, reporter, {
      ...(options.maxBlockBytes !== undefined && { maxBlockBytes: options.maxBlockBytes }),
      ...(options.clock !== undefined && { nowNs: options.clock.nowNs }),
    });
  }
  return new DynamicBatcher(target, reporter, settings, {
    ...(options.maxBlockBytes !== undefined && { maxBlockBytes: options.maxBlockBytes }),
    ...(options.clock !== undefined && { clock: options.clock }),
  });
}
