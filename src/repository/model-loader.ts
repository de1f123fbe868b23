// Loads a model repository at start-up: every model's config goes through the config pipeline, the
// process-wide thread budget is planned over all of them, then each version's instances start and
// run the config's model_warmup before the version is ready.
// A model that fails at any step fails alone: its entry is UNAVAILABLE with the reason, and the
// other models load. Reasons never carry absolute paths (they reach clients through the index).

import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BackendConfig } from '../config/backend-config.js';
import { checkModelAgainstConfig } from '../config/check-model-io.js';
import { loadModelConfig } from '../config/load-model-config.js';
import type { ModelConfig } from '../config/model-config.js';
import type { OrtParameters } from '../config/ort-parameters.js';
import { modelSignature } from './model-signature.js';
import { toServerError } from '../errors.js';
import { buildInstanceGroupPlans } from '../execution/build-session-plan.js';
import { unappliedOptionWarnings } from '../execution/execution-providers.js';
import { availableGpuIds } from '../execution/gpu-devices.js';
import { InstancePool } from '../execution/instance-pool.js';
import { planThreadBudget, type ThreadBudget } from '../execution/thread-budget.js';
import { buildWarmupRuns } from '../execution/warmup-runs.js';
import type { Logger } from '../logger.js';
import type { MetricsCatalog } from '../metrics/metrics-catalog.js';
import { ModelReporter } from '../metrics/model-reporter.js';
import { createScheduler } from '../scheduler/create-scheduler.js';
import { ModelRegistry } from './model-registry.js';
import type { ModelEntry, ModelVersion } from './model-version.js';
import { scanRepository, type RepositoryEntry } from './scan-repository.js';
import { selectVersions } from './version-policy.js';

export interface LoaderOptions {
  readonly repositories: readonly string[];
  readonly backend: BackendConfig;
  readonly disableAutoComplete: boolean;
  /** 'auto' probes ORT; false forces the worker copy path. */
  readonly sabTensors: boolean | 'auto';
  /** Cap on one request's shared-memory input block. */
  readonly maxInputBytes: number;
  readonly catalog: MetricsCatalog;
  readonly logger: Logger;
  /** Cores the thread budget divides (default os.availableParallelism()). */
  readonly cores?: number;
}

/** What failure reporting needs: the log, and the roots to strip from reasons. */
interface LoadContext {
  readonly logger: Logger;
  readonly roots: readonly string[];
}

interface Configured {
  readonly entry: ModelEntry;
  readonly source: RepositoryEntry;
  readonly config: ModelConfig;
  readonly ort: OrtParameters;
  /** Version -> absolute model file path. */
  readonly files: ReadonlyMap<number, string>;
}

export async function loadRepository(options: LoaderOptions): Promise<ModelRegistry> {
  const { logger } = options;
  const ctx: LoadContext = { logger, roots: options.repositories.map((r) => path.resolve(r)) };
  const registry = new ModelRegistry();
  const sources: RepositoryEntry[] = [];
  for (const root of options.repositories) {
    const scan = await scanRepository(root, (directory, reason) =>
      logger.warn({ directory }, `skipped: ${reason}`),
    );
    for (const s of scan.skipped) logger.warn({ directory: s }, 'skipped: not a valid model name');
    sources.push(...scan.models);
  }

  const gpus = availableGpuIds();
  const configured: Configured[] = [];
  for (const source of sources) {
    const entry: ModelEntry = {
      name: source.name,
      state: 'LOADING',
      reason: '',
      config: undefined,
      versions: new Map(),
    };
    if (registry.entry(source.name) !== undefined) {
      logger.error({ model: source.name }, 'model name appears in more than one repository');
      const first = registry.entry(source.name) as ModelEntry;
      first.state = 'UNAVAILABLE';
      first.reason = `model '${source.name}' appears in more than one model repository`;
      continue;
    }
    registry.add(entry);
    try {
      const { config, ort, warnings } = await loadModelConfig(source.dir, {
        defaultMaxBatchSize: options.backend.onnxruntime.defaultMaxBatchSize,
        disableAutoComplete: options.disableAutoComplete,
        ...(gpus !== undefined ? { availableGpus: gpus } : {}),
      });
      for (const w of warnings) logger.warn({ model: source.name }, w);
      entry.config = config;
      const files = await versionFiles(source, config);
      if (files.size === 0) {
        throw new Error(
          `no version of model '${source.name}' holds ${config.default_model_filename} under its version policy`,
        );
      }
      configured.push({ entry, source, config, ort, files });
    } catch (e) {
      markFailed(entry, e, ctx);
    }
  }

  let budget: ThreadBudget;
  try {
    budget = planThreadBudget(
      configured.flatMap((c) =>
        [...c.files.keys()].map((version) => ({
          model: c.config.name,
          version,
          groups: c.config.instance_group,
          params: c.ort,
        })),
      ),
      {
        globalThreadPool: options.backend.onnxruntime.enableGlobalThreadpool,
        intraOpThreadCount: options.backend.onnxruntime.intraOpThreadCount ?? 0,
        interOpThreadCount: options.backend.onnxruntime.interOpThreadCount ?? 0,
      },
      options.cores ?? os.availableParallelism(),
    );
  } catch (e) {
    for (const c of configured) markFailed(c.entry, e, ctx);
    return registry;
  }
  for (const line of budget.log) logger.info(line);
  for (const w of budget.warnings) logger.warn(w);

  await Promise.all(configured.map((c) => startModel(c, budget, options, ctx)));
  return registry;
}

async function startModel(
  c: Configured,
  budget: ThreadBudget,
  options: LoaderOptions,
  ctx: LoadContext,
): Promise<void> {
  const { entry, config } = c;
  const log = options.logger.child({ model: entry.name });
  const started: ModelVersion[] = [];
  try {
    // Built once for every version: the workers only read the inputs' shared memory.
    const warmup = await buildWarmupRuns(config, { modelDir: c.source.dir });
    for (const [version, modelPath] of c.files) {
      const t0 = process.hrtime.bigint();
      const groups = buildInstanceGroupPlans(config, c.ort, version, budget);
      for (const g of groups)
        for (const w of unappliedOptionWarnings(g.plan.executionProviders)) log.warn(w);
      const pool = await InstancePool.start({
        model: config.name,
        version,
        modelPath,
        groups,
        sabTensors: options.sabTensors,
        warmup: warmup.runs,
        logger: {
          info: (m) => log.info(m),
          warn: (m) => log.warn(m),
          error: (m) => log.error(m),
        },
      });
      try {
        // As Triton's ORT backend does per instance: the config must describe the model that
        // was actually opened (autocomplete only checked it when it had to open the model).
        checkModelAgainstConfig(config, pool.modelIO);
      } catch (e) {
        await pool.close();
        throw e;
      }
      const reporter = new ModelReporter(options.catalog, config.name, version);
      // The dynamic batcher when the config has dynamic_batching, else the direct strategy.
      const scheduler = createScheduler(config, pool, reporter, {
        maxBlockBytes: options.maxInputBytes,
      });
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      options.catalog.loadDurationSecs
        .labels({ model: config.name, version: String(version) })
        .set(seconds);
      started.push({
        name: config.name,
        version,
        config,
        signature: modelSignature(config, version),
        reporter,
        scheduler,
        ready: () => pool.ready,
        unload: async () => {
          await scheduler.stop();
          await pool.close();
        },
      });
      log.info({ version, seconds: Number(seconds.toFixed(3)) }, 'model version ready');
    }
    for (const v of started) entry.versions.set(v.version, v);
    entry.state = 'READY';
  } catch (e) {
    // A version failed: the model fails as a whole, as in Triton; stop what already started.
    await Promise.all(started.map((v) => v.unload()));
    markFailed(entry, e, ctx);
  }
}

/** The served versions and their model files: present on disk and selected by version_policy. */
async function versionFiles(
  source: RepositoryEntry,
  config: ModelConfig,
): Promise<Map<number, string>> {
  const present: number[] = [];
  const files = new Map<number, string>();
  for (const v of source.versions) {
    const file = await modelFile(path.join(source.dir, String(v)), config.default_model_filename);
    if (file !== undefined) {
      present.push(v);
      files.set(v, file);
    }
  }
  const selected = new Set(selectVersions(config.version_policy, present));
  for (const v of [...files.keys()]) if (!selected.has(v)) files.delete(v);
  return files;
}

/** `<versionDir>/<filename>`, or `<versionDir>/<filename>/model.onnx` when it is a directory. */
async function modelFile(versionDir: string, filename: string): Promise<string | undefined> {
  const p = path.join(versionDir, filename);
  try {
    const s = await stat(p);
    if (s.isFile()) return p;
    if (s.isDirectory()) {
      const inner = path.join(p, 'model.onnx');
      if ((await stat(inner)).isFile()) return inner;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function markFailed(entry: ModelEntry, e: unknown, ctx: LoadContext): void {
  entry.state = 'UNAVAILABLE';
  // Reasons reach clients (repository index, infer errors): repository paths become relative.
  let reason = e instanceof Error ? e.message : String(e);
  for (const root of ctx.roots)
    reason = reason
      .split(root + path.sep)
      .join('')
      .split(root)
      .join('.');
  entry.reason = reason;
  entry.versions.clear();
  ctx.logger.error(
    { model: entry.name, code: toServerError(e).code, reason: entry.reason },
    'model failed to load',
  );
}
