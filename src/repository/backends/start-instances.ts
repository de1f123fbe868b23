// Starts one version of a backend that runs instances (ONNX Runtime, JavaScript): the backend's plan
// of its instance groups (ORT: session plans with the budget's threads), its instance pool
// (sessions and warmup in worker threads, with the backend's worker entry, run hand-off and
// timeouts), the backend's check of the opened model against the config, its reporter and its
// scheduler. The result serves as soon as the registry holds it.

import type { ModelIO } from '../../config/read-model-io.js';
import type { ModelConfig } from '../../config/model-config.js';
import { InstancePool, type InstancePoolInit } from '../../execution/instance-pool.js';
import type { WarmupRun } from '../../execution/messages.js';
import type { InstanceGroup } from '../../execution/run-channel.js';
import type { ThreadBudget } from '../../execution/thread-budget.js';
import { ModelReporter } from '../../metrics/model-reporter.js';
import { createScheduler } from '../../scheduler/create-scheduler.js';
import { limitedInstances } from '../../scheduler/rate-limit/limited-instances.js';
import type { ConfiguredModel } from '../configure-model.js';
import { modelSignature } from '../model-signature.js';
import type { ModelVersion } from '../model-version.js';
import type { BackendDeps } from './backend.js';

/** What an instance backend adds to the common start; `G` is its plan of one instance group. */
export interface InstanceBackendParts<G extends InstanceGroup> {
  /**
   * The version's instance groups as its workers need them (ORT: each with its session plan and the
   * threads `budget` gave it); `warn` logs at WARN.
   */
  groups(
    configured: ConfiguredModel,
    version: number,
    budget: ThreadBudget,
    warn: (message: string) => void,
  ): readonly G[];
  /** The pool's workers and run hand-off (an ORT worker and its doorbell; a JavaScript model's worker and timeouts). */
  poolOptions(configured: ConfiguredModel, deps: BackendDeps): Pick<InstancePoolInit<G>, 'backend'>;
  /**
   * Checks the config against the model the instances opened; throws to fail the load. A backend
   * whose model has no signature of its own checks its responses against the config instead.
   */
  checkModelIO(config: ModelConfig, io: ModelIO): void;
  /** Each request may be answered 0..n times (the signature says so to the transports). */
  decoupled(configured: ConfiguredModel): boolean;
  /** Its models take BYTES elements holding NUL bytes as sent (ModelSignature.bytesMayHoldNul). */
  readonly bytesMayHoldNul: boolean;
}

export async function startInstances<G extends InstanceGroup>(
  parts: InstanceBackendParts<G>,
  c: ConfiguredModel,
  version: number,
  budget: ThreadBudget,
  warmup: readonly WarmupRun[],
  deps: BackendDeps,
): Promise<ModelVersion> {
  const { config } = c;
  const file = c.files.get(version);
  if (file === undefined) throw new Error(`version ${version} is not in the load plan`); // a bug
  const log = deps.logger.child({ model: config.name });
  const t0 = process.hrtime.bigint();
  const groups = parts.groups(c, version, budget, (m) => log.warn(m));
  // --rate-limit=execution_count: the instances join the server's resource table before any worker
  // starts (a demand the table cannot meet fails the load here, in Triton's words).
  const gate = deps.rateLimiter?.register(config.name, version, limitedInstances(config, groups));
  if (gate !== undefined) {
    log.info({ version, resources: deps.rateLimiter?.describe() }, 'rate limiter resources');
  }
  const pool = await InstancePool.start({
    model: config.name,
    version,
    modelPath: file.path,
    groups,
    sabTensors: deps.sabTensors,
    warmup,
    ...parts.poolOptions(c, deps),
    ...(deps.catalog.threads.intervalMs !== undefined && {
      readingsTick: deps.catalog.threads.tick,
    }),
    logger: {
      info: (m) => log.info(m),
      warn: (m) => log.warn(m),
      error: (m) => log.error(m),
    },
    ...(gate !== undefined && { gate }),
  }).catch((e: unknown) => {
    gate?.close();
    throw e;
  });
  try {
    parts.checkModelIO(config, pool.modelIO);
  } catch (e) {
    await pool.close();
    gate?.close();
    throw e;
  }
  const reporter = new ModelReporter(deps.catalog, config.name, version);
  pool.onInstanceRestart(() => reporter.instanceRestarted());
  // The sequence batcher, the dynamic batcher, or the direct strategy, as the config says.
  const scheduler = createScheduler(config, pool, reporter, {
    maxBlockBytes: deps.maxInputBytes,
    modelDir: c.source.dir,
  });
  // infernode_thread_* for each of its workers, until it unloads.
  const forgetThreads = deps.catalog.threads.addSource(() => pool.threadReadings());
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  deps.catalog.loadDurationSecs
    .labels({ model: config.name, version: String(version) })
    .set(seconds);
  log.info({ version, seconds: Number(seconds.toFixed(3)) }, 'model version ready');
  return {
    name: config.name,
    version,
    config,
    signature: modelSignature(config, version, {
      bytesMayHoldNul: parts.bytesMayHoldNul,
      decoupled: parts.decoupled(c),
    }),
    reporter,
    scheduler,
    ready: () => pool.ready,
    unload: async () => {
      await scheduler.stop();
      await pool.close();
      // No run of the version waits for or holds resources once its pool has closed.
      gate?.close();
      forgetThreads();
    },
  };
}
