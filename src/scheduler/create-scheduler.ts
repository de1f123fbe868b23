// Picks a model version's scheduler from its frozen config: one shell around the sequence batcher
// when it has `sequence_batching`, else around the dynamic batcher, with the config's
// `dynamic_batching` settings, or with batching disabled when it has none — as Triton's default
// scheduler is its dynamic batcher with batching disabled.

import type { ModelConfig } from '../config/model-config.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import { DynamicBatcher, type BatcherSettings } from './dynamic-batcher.js';
import type { ExecutionTarget } from './execution-target.js';
import { priorityPlan } from './queue-policy.js';
import type { SchedulerClock } from './scheduler-clock.js';
import { SchedulerShell } from './scheduler-shell.js';
import { SYSTEM_CLOCK } from './scheduler-clock.js';
import { stateSpecs } from './sequence/initial-states.js';
import { SequenceBatcher } from './sequence/sequence-batcher.js';
import { DEFAULT_MAX_BLOCK_BYTES } from '../memory/tensor-block.js';
import type { Scheduler } from './scheduler.js';

export interface SchedulerOptions {
  /** Cap on one run's input block, in bytes (the server passes --http-max-input-size). */
  readonly maxBlockBytes?: number;
  readonly clock?: SchedulerClock;
  /** The model directory, where `initial_state` data files are read from. */
  readonly modelDir?: string;
  /** Live sequences a sequence model allows (default: see `defaultMaxLive`). */
  readonly maxLiveSequences?: number;
}

/**
 * No `dynamic_batching`: each request runs alone, in arrival order, on the next free instance, with
 * no queue delay and the default queue policy (one level, no cap, no timeout; a request's
 * `priority` and `timeout` are ignored).
 */
export const DIRECT_SETTINGS: BatcherSettings = Object.freeze({
  maxBatchSize: 0,
  preferredBatchSizes: Object.freeze([]),
  maxQueueDelayUs: 0,
  preserveOrdering: false,
  priorities: priorityPlan(undefined),
});

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
  if (config.sequence_batching !== undefined)
    return sequenceScheduler(config, target, reporter, options);
  return batchingScheduler(target, reporter, batcherSettings(config) ?? DIRECT_SETTINGS, options);
}

/**
 * The shell running the sequence batcher. The queue has one level, no cap and no timeout (a
 * sequence model has no dynamic_batching queue policy); `oldest { preserve_ordering }` orders
 * responses. Its queue stays first-come-first-served whatever the requests' tenants: a sequence's
 * requests must reach the model in the order they came.
 */
export function sequenceScheduler(
  config: ModelConfig,
  target: ExecutionTarget,
  reporter: ModelReporter,
  options: SchedulerOptions = {},
): Scheduler {
  const sb = config.sequence_batching;
  if (sb === undefined) throw new Error(`model '${config.name}' has no sequence_batching`); // a bug
  const clock = options.clock ?? SYSTEM_CLOCK;
  const batcher = new SequenceBatcher(target, {
    model: config.name,
    maxBatchSize: config.max_batch_size,
    config: sb,
    states: stateSpecs(config.name, sb, options.modelDir),
    maxBlockBytes: options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES,
    ...(options.maxLiveSequences !== undefined && { maxLiveSequences: options.maxLiveSequences }),
    clock,
    observe: (s) => reporter.sequences(s),
    idleReleased: () => reporter.sequenceIdleReleased(),
  });
  return new SchedulerShell(batcher, reporter, {
    priorities: priorityPlan(undefined),
    preserveOrdering: sb.oldest?.preserve_ordering ?? false,
    fairTenants: false,
    clock,
  });
}

/** The shell running the dynamic batcher with `settings` on `target`. */
export function batchingScheduler(
  target: ExecutionTarget,
  reporter: ModelReporter,
  settings: BatcherSettings,
  options: SchedulerOptions = {},
): Scheduler {
  return new SchedulerShell(new DynamicBatcher(target, settings, options.maxBlockBytes), reporter, {
    priorities: settings.priorities,
    preserveOrdering: settings.preserveOrdering,
    ...(options.clock !== undefined && { clock: options.clock }),
  });
}
