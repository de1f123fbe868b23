// The steps of one load, which the model manager's control modes (model-manager.ts) run inside a
// model's operation chain: plan it (the config pipeline, then which versions keep running, start or
// retire), fit it into the thread budget with everything else serving, commit it (start the new
// versions while the old ones serve, then switch the registry in one assignment), and retire what
// it replaced (drain, then stop); and the steps of an unload (stop serving, drain, stop). It
// remembers what each serving model was started from, so a reload with nothing changed is a no-op,
// and which versions are still draining. A failed step leaves what served serving and records why
// in the log and, through the model's lifecycle (model-lifecycle.ts), in the registry.

import os from 'node:os';
import type { BackendConfig } from '../config/backend-config.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { availableGpuIds } from '../execution/gpu-devices.js';
import {
  planThreadBudget,
  type ModelThreadDemand,
  type ThreadBudget,
} from '../execution/thread-budget.js';
import { buildWarmupRuns } from '../execution/warmup-runs.js';
import type { Logger } from '../logger.js';
import { collectGarbage } from '../memory/collect-garbage.js';
import type { MetricsCatalog } from '../metrics/metrics-catalog.js';
import type { WarmupRun } from '../execution/messages.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import {
  configureModel,
  scrubReason,
  type ConfiguredModel,
  type ModelSource,
} from './configure-model.js';
import type { ModelLifecycle } from './model-lifecycle.js';
import type { ModelVersion } from './model-version.js';
import type { OverrideDirectory } from './override-directory.js';
import { readBackendSettings } from './backends/registry.js';
import type { ServerHost } from './server-host.js';
import type { OrtLogSeverity } from '../execution/onnxruntime/ort-log-level.js';
import type { RateLimiter } from '../scheduler/rate-limit/rate-limiter.js';

/** What the load steps take from the server's options. */
export interface LoadStepsOptions {
  readonly backend: BackendConfig;
  readonly disableAutoComplete: boolean;
  /** `--model-config-name`: read `configs/<name>.pbtxt` where a model has it; '' for none. */
  readonly modelConfigName: string;
  /** 'auto' probes ORT; false forces the worker copy path. */
  readonly sabTensors: boolean | 'auto';
  /** False: ORT workers take every run as a piscina task instead of over the doorbell. */
  readonly doorbell: boolean;
  /** Cap on one request's shared-memory input block. */
  readonly maxInputBytes: number;
  readonly catalog: MetricsCatalog;
  readonly logger: Logger;
  /** Whether the server has a response cache: models enabling it are refused without one. */
  readonly responseCache?: boolean;
  /** Cores the thread budget divides (default os.availableParallelism()). */
  readonly cores?: number;
  /** ONNX Runtime's log severity for sessions created now (absent: ORT's default, warning). */
  readonly ortLogSeverity?: () => OrtLogSeverity;
  /** The server's rate limiter (--rate-limit=execution_count); absent when off. */
  readonly rateLimiter?: RateLimiter;
}

/** Where a serving model came from, and what its versions were started from. */
export interface Served {
  readonly dir: string;
  /** The config as JSON: a reload with an equal config keeps unchanged versions running. */
  readonly configKey: string;
  /** Version -> the model file identity it was started from. */
  readonly files: ReadonlyMap<number, string>;
  readonly demands: readonly ModelThreadDemand[];
  /** The load call's private directory, removed once nothing runs from it. */
  readonly override: OverrideDirectory | undefined;
}

/**
 * Starts one version of a configured model: its instances' workers, or an ensemble's steps. The
 * default asks the model's backend (backends/backend.ts); tests give a fake that starts nothing.
 */
export type VersionStarter = (
  configured: ConfiguredModel,
  version: number,
  budget: ThreadBudget,
  warmup: readonly WarmupRun[],
) => Promise<ModelVersion>;

/** A load worked out up to the point of starting workers. */
export interface LoadPlan {
  readonly entry: ModelLifecycle;
  readonly configured: ConfiguredModel;
  readonly override: OverrideDirectory | undefined;
  readonly keep: ReadonlyMap<number, ModelVersion>;
  readonly start: readonly number[];
  readonly retire: readonly ModelVersion[];
  readonly demands: readonly ModelThreadDemand[];
}

export class LoadSteps {
  private readonly served = new Map<string, Served>();
  /** Versions replaced or unloaded whose queues are still draining. */
  private readonly leaving = new Set<ModelVersion>();
  private readonly gpus = availableGpuIds();
  private readonly startOne: VersionStarter;

  constructor(
    private readonly options: LoadStepsOptions,
    /** What ensembles and JavaScript models' BLS calls see of the server. */
    private readonly host: ServerHost,
    /** Stripped from failure reasons, which reach clients. */
    private readonly roots: readonly string[],
    startOne?: VersionStarter,
  ) {
    this.startOne =
      startOne ??
      ((configured, v, budget, warmup) =>
        configured.start(configured, v, budget, warmup, {
          ...this.options,
          host: this.host,
        }));
  }

  /**
   * Works a load out without touching what serves: the config pipeline, then which versions keep
   * running (same config, same file), start, or retire. Undefined when nothing would change.
   */
  async plan(
    entry: ModelLifecycle,
    source: ModelSource,
    override: OverrideDirectory | undefined,
    configJson?: string,
  ): Promise<LoadPlan | undefined> {
    let configured: ConfiguredModel;
    try {
      configured = await configureModel(source, {
        backend: this.options.backend,
        disableAutoComplete: this.options.disableAutoComplete,
        configName: this.options.modelConfigName,
        availableGpus: this.gpus,
        responseCache: this.options.responseCache === true,
        ...(configJson !== undefined ? { configJson } : {}),
      });
    } catch (e) {
      await override?.remove();
      throw e;
    }
    const log = this.options.logger.child({ model: entry.name });
    for (const w of configured.warnings) log.warn(w);
    entry.configured(configured.config);

    const served = this.served.get(entry.name);
    const configKey = JSON.stringify(configured.config);
    const sameModel =
      served !== undefined &&
      entry.versions.size > 0 &&
      served.dir === source.dir &&
      served.configKey === configKey;
    const keep = new Map<number, ModelVersion>();
    const start: number[] = [];
    for (const [v, file] of configured.files) {
      const running = entry.versions.get(v);
      if (sameModel && running !== undefined && served.files.get(v) === file.identity) {
        keep.set(v, running);
      } else {
        start.push(v);
      }
    }
    const retire = [...entry.versions.values()].filter((v) => !keep.has(v.version));
    if (start.length === 0 && retire.length === 0 && entry.state === 'READY') {
      entry.unchanged();
      return undefined;
    }
    const demands = [...configured.files.keys()].map((version): ModelThreadDemand => ({
      model: configured.config.name,
      version,
      groups: configured.config.instance_group,
      params: configured.threadParameters,
      ortSessions: configured.backend.ortSessions,
    }));
    return { entry, configured, override, keep, start, retire, demands };
  }

  /** The thread budget over every serving model plus the plans (which replace their own model). */
  budget(plans: readonly LoadPlan[]): ThreadBudget {
    const planned = new Set(plans.map((p) => p.entry.name));
    const demands: ModelThreadDemand[] = [];
    for (const [name, s] of this.served) if (!planned.has(name)) demands.push(...s.demands);
    for (const p of plans) demands.push(...p.demands);
    return planThreadBudget(
      demands,
      readBackendSettings(this.options.backend).threads,
      this.options.cores ?? os.availableParallelism(),
    );
  }

  /**
   * Starts the plan's new versions while the old ones serve, then switches the registry in one
   * step. Resolves, after the switch, with the retirement of the replaced versions (they drain,
   * then their workers exit), which the model's next operation waits for. A version that fails to
   * start fails the load: the ones started are stopped, and what served keeps serving.
   */
  async commit(plan: LoadPlan, budget: ThreadBudget): Promise<{ readonly retired: Promise<void> }> {
    const { entry, configured } = plan;
    const { logger } = this.options;
    entry.startLoading(plan.start);
    const started: ModelVersion[] = [];
    let failure: unknown;
    try {
      // Read once for every version (input_data_file samples come from the model's warmup/).
      const warmup = await buildWarmupRuns(configured.config, {
        modelDir: configured.source.dir,
      });
      const results = await Promise.allSettled(
        plan.start.map((v) => this.startOne(configured, v, budget, warmup.runs)),
      );
      for (const r of results) {
        if (r.status === 'fulfilled') started.push(r.value);
        else failure ??= r.reason;
      }
    } catch (e) {
      failure = e;
    }
    if (failure !== undefined) {
      // The model fails as a whole, as in Triton: stop what started; what served keeps serving.
      await Promise.all(started.map((v) => v.unload()));
      await plan.override?.remove();
      entry.loadFailed(plan.start, this.reason(failure));
      throw this.markFailed(entry, failure);
    }

    const next = new Map<number, ModelVersion>();
    for (const v of [...plan.keep.values(), ...started].sort((a, b) => a.version - b.version)) {
      next.set(v.version, v);
    }
    const previous = this.served.get(entry.name);
    entry.serve(configured.config, next, plan.retire); // requests from here on see `next`
    this.served.set(entry.name, {
      dir: configured.source.dir,
      configKey: JSON.stringify(configured.config),
      files: new Map([...configured.files].map(([v, f]) => [v, f.identity])),
      demands: plan.demands,
      override: plan.override,
    });
    if (plan.retire.length > 0 || previous !== undefined) {
      logger.info(
        {
          model: entry.name,
          started: plan.start,
          kept: [...plan.keep.keys()],
          retiring: plan.retire.map((v) => v.version),
        },
        'model switched to its new versions',
      );
    }
    return { retired: this.retire(entry, plan.retire, previous?.override, plan.override) };
  }

  /**
   * Unloads a model: new requests are refused at once (no serving version); queued and running
   * ones finish; resolves when its versions have drained and their workers exited.
   */
  async unload(entry: ModelLifecycle): Promise<void> {
    const old = entry.beginUnload();
    if (old.length === 0) return;
    const served = this.forget(entry.name);
    await this.draining(old);
    entry.unloaded(old.map((v) => v.version));
    for (const v of old) this.options.catalog.forgetModelVersion(entry.name, v.version);
    await served?.override?.remove();
    collectGarbage();
    this.options.logger.info({ model: entry.name }, 'model unloaded');
  }

  /** The model no longer serves (an unload): what it was started from, for its cleanup. */
  private forget(name: string): Served | undefined {
    const served = this.served.get(name);
    this.served.delete(name);
    return served;
  }

  /**
   * Unloads versions that no longer serve, keeping them in `leaving` meanwhile: a shutdown cut
   * short reaches their queues too (see `leavingSchedulers`).
   */
  async draining(versions: readonly ModelVersion[]): Promise<void> {
    for (const v of versions) this.leaving.add(v);
    try {
      await Promise.all(versions.map((v) => v.unload()));
    } finally {
      for (const v of versions) this.leaving.delete(v);
    }
  }

  /** The schedulers of versions draining after a reload or an unload, which serve no new request. */
  leavingSchedulers(): Scheduler[] {
    return [...this.leaving].map((v) => v.scheduler);
  }

  /** A failure's message with the repository roots and the temp directory taken out. */
  reason(e: unknown): string {
    return scrubReason(e, [...this.roots, os.tmpdir()]);
  }

  /** The error as a catalogued one whose message names no absolute path (it reaches clients). */
  scrubbed(e: unknown): InferenceServerError {
    return fail(toServerError(e).code, this.reason(e));
  }

  /**
   * Records a failed load: the reason goes to the entry (and the log); the model is UNAVAILABLE
   * unless older versions still serve, and then its unavailable version rows carry the reason
   * (not an older `unloaded`). Returns the error to answer the load with, paths scrubbed.
   */
  markFailed(entry: ModelLifecycle, e: unknown): InferenceServerError {
    const reason = this.reason(e);
    const serving = entry.failed(reason);
    this.options.logger.error(
      { model: entry.name, code: toServerError(e).code, reason },
      serving ? 'model failed to load; its previous versions keep serving' : 'model failed to load',
    );
    return this.scrubbed(e);
  }

  /** Drains and stops replaced versions; forgets the metrics of version numbers no longer served. */
  private async retire(
    entry: ModelLifecycle,
    old: readonly ModelVersion[],
    oldOverride: OverrideDirectory | undefined,
    newOverride: OverrideDirectory | undefined,
  ): Promise<void> {
    await this.draining(old);
    const gone = entry.retired(old.map((v) => v.version));
    for (const v of gone) this.options.catalog.forgetModelVersion(entry.name, v);
    if (oldOverride !== undefined && oldOverride !== newOverride) await oldOverride.remove();
    if (old.length > 0) collectGarbage();
  }
}
