// Starts one configured model version: its instances (sessions and warmup, in worker threads; or a
// JavaScript model's module in each), the check that the config describes the model ORT opened,
// its reporter and its scheduler. The result
// serves as soon as the registry holds it.

import type { ThreadBudget } from '../execution/thread-budget.js';
import { checkModelAgainstConfig } from '../config/check-model-io.js';
import { toConfigJson } from '../config/config-json.js';
import type { ModelConfig } from '../config/model-config.js';
import { buildInstanceGroupPlans } from '../execution/build-session-plan.js';
import { unappliedOptionWarnings } from '../execution/execution-providers.js';
import { InstancePool } from '../execution/instance-pool.js';
import type { BlsHost } from '../execution/javascript/instance-channel.js';
import type { JavascriptWorkerInit, WarmupRun } from '../execution/messages.js';
import type { Logger } from '../logger.js';
import { fromConfigType } from '../tensor/datatypes.js';
import type { MetricsCatalog } from '../metrics/metrics-catalog.js';
import { ModelReporter } from '../metrics/model-reporter.js';
import { createScheduler } from '../scheduler/create-scheduler.js';
import type { ConfiguredModel } from './configure-model.js';
import { modelSignature } from './model-signature.js';
import type { ModelVersion } from './model-version.js';

export interface StartVersionDeps {
  /** 'auto' probes ORT; false forces the worker copy path. */
  readonly sabTensors: boolean | 'auto';
  /** False: ORT workers take every run as a piscina task instead of over the doorbell. */
  readonly doorbell: boolean;
  /** Cap on one request's shared-memory input block. */
  readonly maxInputBytes: number;
  readonly catalog: MetricsCatalog;
  readonly logger: Logger;
  /** The data plane, for a JavaScript model's BLS calls (absent in tests that run no server). */
  readonly bls?: BlsHost;
}

export async function startVersion(
  c: ConfiguredModel,
  version: number,
  budget: ThreadBudget,
  warmup: readonly WarmupRun[],
  deps: StartVersionDeps,
): Promise<ModelVersion> {
  const { config } = c;
  const file = c.files.get(version);
  if (file === undefined) throw new Error(`version ${version} is not in the load plan`); // a bug
  const log = deps.logger.child({ model: config.name });
  const t0 = process.hrtime.bigint();
  const groups = buildInstanceGroupPlans(config, c.ort, version, budget);
  for (const g of groups)
    for (const w of unappliedOptionWarnings(g.plan.executionProviders)) log.warn(w);
  const pool = await InstancePool.start({
    model: config.name,
    version,
    modelPath: file.path,
    groups,
    sabTensors: deps.sabTensors,
    doorbell: deps.doorbell,
    warmup,
    ...(c.javascript !== undefined && {
      javascript: {
        worker: javascriptWorkerInit(config, c.source.dir, c.javascript.decoupled),
        executeTimeoutMs: c.javascript.executeTimeoutMs,
        initializeTimeoutMs: c.javascript.initializeTimeoutMs,
        decoupled: c.javascript.decoupled,
        ...(deps.bls !== undefined && { bls: deps.bls }),
      },
    }),
    logger: {
      info: (m) => log.info(m),
      warn: (m) => log.warn(m),
      error: (m) => log.error(m),
    },
  });
  try {
    // As Triton's ORT backend does per instance: the config must describe the model that was
    // actually opened (autocomplete only checked it when it had to open the model). A JavaScript
    // model has no signature of its own: its responses are checked against the config instead.
    if (c.javascript === undefined) checkModelAgainstConfig(config, pool.modelIO);
  } catch (e) {
    await pool.close();
    throw e;
  }
  const reporter = new ModelReporter(deps.catalog, config.name, version);
  pool.onInstanceRestart(() => reporter.instanceRestarted());
  // The sequence batcher, the dynamic batcher, or the direct strategy, as the config says.
  const scheduler = createScheduler(config, pool, reporter, {
    maxBlockBytes: deps.maxInputBytes,
    modelDir: c.source.dir,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  deps.catalog.loadDurationSecs
    .labels({ model: config.name, version: String(version) })
    .set(seconds);
  log.info({ version, seconds: Number(seconds.toFixed(3)) }, 'model version ready');
  return {
    name: config.name,
    version,
    config,
    signature:
      c.javascript?.decoupled === true
        ? Object.freeze({ ...modelSignature(config, version), decoupled: true })
        : modelSignature(config, version),
    reporter,
    scheduler,
    ready: () => pool.ready,
    unload: async () => {
      await scheduler.stop();
      await pool.close();
    },
  };
}

/** What a JavaScript model's workers get: its config as Triton's JSON, its directory, its outputs. */
function javascriptWorkerInit(
  config: ModelConfig,
  modelDir: string,
  decoupled: boolean,
): JavascriptWorkerInit {
  return {
    decoupled,
    modelConfig: toConfigJson(config),
    modelDir,
    batched: config.max_batch_size > 0,
    outputs: config.output.map((o) => {
      const datatype = fromConfigType(o.data_type);
      // Validation has refused any other data_type before a version starts.
      if (datatype === undefined) throw new Error(`output ${o.name} has type ${o.data_type}`);
      return { name: o.name, datatype, dims: [...o.dims] };
    }),
  };
}
