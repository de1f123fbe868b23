// The model manager: Triton's model control modes (none, explicit, poll) over the registry, and the
// public load / unload / index API. It runs each model's loads, reloads and unloads one operation
// at a time, in order, and keeps the registry truthful while it does. A reload never fails a
// request: the new versions start while the old ones serve, the registry switches in one
// assignment, and the old versions then drain before their workers exit. How one load or unload is
// carried out (plan, thread budget, commit, retire) is load-steps.ts; each model's state and reason
// are recorded by its lifecycle (model-lifecycle.ts).

import path from 'node:path';
import { fail, InferenceServerError, toServerError } from '../errors.js';
import type { ThreadBudget } from '../execution/thread-budget.js';
import type { ModelSource } from './configure-model.js';
import {
  LoadSteps,
  type LoadPlan,
  type LoadStepsOptions,
  type VersionStarter,
} from './load-steps.js';
import { assertValidModelName } from './model-name.js';
import { indexRows, ModelLifecycle, type IndexRow } from './model-lifecycle.js';
import { ModelRegistry } from './model-registry.js';
import { writeOverrideDirectory, type OverrideDirectory } from './override-directory.js';
import { OperationChains, type DeferWork } from './operation-chains.js';
import { RepositoryPoller } from './repository-poller.js';
import { listVersions, scanRepositories } from './scan-repository.js';
import { modelDependencies } from './backends/registry.js';
import { ServerHost } from './server-host.js';
import type { BlsHost } from '../execution/javascript/instance-channel.js';
import type { Scheduler } from '../scheduler/scheduler.js';

/** `--model-control-mode`. */
export type ModelControlMode = 'none' | 'poll' | 'explicit';

export const MODEL_CONTROL_MODES: readonly ModelControlMode[] = ['none', 'poll', 'explicit'];

export interface ModelManagerOptions extends LoadStepsOptions {
  readonly mode: ModelControlMode;
  readonly repositories: readonly string[];
  /** `--load-model` names for explicit mode; `*` loads every model. */
  readonly startupModels: readonly string[];
  /** `--repository-poll-secs`. */
  readonly pollSecs: number;
}

/** What a load call may replace: the config (JSON text) and the model files. */
export interface LoadOverride {
  readonly configJson?: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

export class ModelManager {
  readonly registry = new ModelRegistry<ModelLifecycle>();
  /** Operations on one model run one at a time, in order. */
  private readonly chains = new OperationChains((model, e) => {
    this.options.logger.error(
      { model, err: this.steps.reason(e) },
      'retiring replaced versions failed',
    );
  });
  /** Poll mode only. */
  private readonly poller: RepositoryPoller | undefined;
  private closing = false;

  /** What ensembles and JavaScript models' BLS calls see of the server. */
  private readonly host = new ServerHost(this.registry);
  private readonly steps: LoadSteps;

  /**
   * `startVersion` is for tests only: it starts each version instead of the model's backend (a fake
   * that starts no worker, see load-steps.ts's VersionStarter). Production code never passes it.
   */
  constructor(
    private readonly options: ModelManagerOptions,
    startVersion?: VersionStarter,
  ) {
    const roots = options.repositories.map((r) => path.resolve(r));
    this.steps = new LoadSteps(options, this.host, roots, startVersion);
    if (options.mode === 'poll') {
      this.poller = new RepositoryPoller(
        {
          scan: () => this.scanAll(),
          known: () => this.registry.all().map((e) => e.name),
          refuse: (name, e) => {
            const entry = this.entryFor(name);
            if (entry.reason !== this.steps.reason(e)) this.steps.markFailed(entry, e);
          },
          // The reason of a failed load is in the registry and the log; the old versions serve.
          load: (name) =>
            this.serialize(name, (defer) => this.loadNow(name, undefined, defer)).catch(
              () => undefined,
            ),
          remove: (name) =>
            this.serialize(name, async () => {
              const entry = this.registry.entry(name);
              if (entry === undefined) return;
              await this.steps.unload(entry);
              this.registry.remove(name);
            }),
        },
        options.pollSecs,
        options.logger,
        (e) => this.steps.reason(e),
      );
    }
  }

  /**
   * Gives ensembles and JavaScript models' BLS calls the data plane's inference entry: each step
   * or call is a request through it.
   */
  useInference(infer: BlsHost['infer']): void {
    this.host.useInference(infer);
  }

  get mode(): ModelControlMode {
    return this.options.mode;
  }

  /**
   * Loads what the mode loads at start-up (none and poll: every model; explicit: `--load-model`),
   * all planned under one thread budget; poll mode then starts polling. Resolves when every load
   * has ended; failures are in the registry.
   */
  async start(): Promise<void> {
    const { logger } = this.options;
    const sources = await this.scanAll();
    let names: string[];
    if (this.options.mode !== 'explicit' || this.options.startupModels.includes('*')) {
      names = [...sources.keys()];
    } else {
      names = [...new Set(this.options.startupModels)];
    }
    const plans: LoadPlan[] = [];
    for (const name of names) assertValidModelName(name);
    // An ensemble named at start-up brings the models of its steps (found once its config is read).
    for (let k = 0; k < names.length; k++) {
      const name = names[k] as string;
      const entry = this.entryFor(name);
      try {
        const source = sources.get(name);
        if (source === undefined) throw notInRepository(name);
        if (source instanceof Error) throw source;
        await this.poller?.remember(source);
        const plan = await this.steps.plan(entry, source, undefined);
        if (plan !== undefined) plans.push(plan);
        for (const dep of plan === undefined ? [] : dependenciesOf(plan)) {
          if (!names.includes(dep) && sources.has(dep)) names.push(dep);
        }
      } catch (e) {
        this.steps.markFailed(entry, e);
      }
    }
    let budget: ThreadBudget;
    try {
      budget = this.steps.budget(plans);
    } catch (e) {
      for (const p of plans) this.steps.markFailed(p.entry, e);
      return;
    }
    for (const line of budget.log) logger.info(line);
    for (const w of budget.warnings) logger.warn(w);
    // Ensembles last, each after the ensembles it names: a step's model must serve first.
    let waiting = plans;
    while (waiting.length > 0) {
      const pending = new Set(waiting.map((p) => p.entry.name));
      const now = waiting.filter((p) => dependenciesOf(p).every((d) => !pending.has(d)));
      // A cycle between ensembles: commit them anyway; their checks fail with the reason.
      const wave = now.length > 0 ? now : waiting;
      await Promise.all(
        wave.map((p) => this.steps.commit(p, budget).catch(() => undefined /* in the registry */)),
      );
      waiting = waiting.filter((p) => !wave.includes(p));
    }
    this.poller?.start();
  }

  /**
   * The load API: loads or reloads `name` (from the repository, or from `override`). Resolves once
   * the new versions serve. Only in explicit mode, as in Triton.
   */
  async load(name: string, override: LoadOverride | undefined): Promise<void> {
    this.assertControl();
    assertValidModelName(name);
    return this.serialize(name, (defer) => this.loadNow(name, override, defer)).catch(
      (e: unknown) => {
        throw failedToLoad(name, e);
      },
    );
  }

  /**
   * The unload API: new requests are refused at once (no serving version); queued and running ones
   * finish; resolves when the workers have exited. Unloading a model that does not serve succeeds.
   */
  async unload(name: string, options: { readonly unloadDependents?: boolean } = {}): Promise<void> {
    this.assertControl();
    if (options.unloadDependents === true) {
      // The ensembles naming the model go first (Triton's unload_dependents), so none is left
      // serving with a step that cannot run.
      const dependents = this.registry
        .all()
        .filter((e) => e.versions.size > 0 && modelDependencies(e.config).includes(name));
      await Promise.all(dependents.map((e) => this.unload(e.name, options)));
    }
    // No name check here, as in Triton: the name is only looked up, never made into a path, so
    // any string gets "not found" rather than a lecture on path traversal. The look-up runs in the
    // model's chain, after the operations asked before it: a load asked just before has no entry
    // until it runs, and is unloaded once it has served, not overtaken.
    return this.serialize(name, async () => {
      const entry = this.registry.entry(name);
      if (entry !== undefined) return this.steps.unload(entry);
      const sources = await this.scanAll();
      if (!sources.has(name)) {
        throw fail(
          'MODEL_NOT_FOUND',
          `failed to unload ${JSON.stringify(name.slice(0, 200))}: model not found`,
        );
      }
    });
  }

  /** Every model the repositories hold or the registry knows, per version where it has any. */
  async index(readyOnly: boolean): Promise<IndexRow[]> {
    const onDisk = await this.scanAll();
    const rows: IndexRow[] = [];
    const names = [
      ...new Set([...onDisk.keys(), ...this.registry.all().map((e) => e.name)]),
    ].sort();
    for (const name of names) {
      const entry = this.registry.entry(name);
      if (entry === undefined) {
        if (!readyOnly) rows.push({ name });
        continue;
      }
      rows.push(...indexRows(entry));
    }
    return readyOnly ? rows.filter((r) => r.state === 'READY') : rows;
  }

  /** Stops polling; loads and unloads already running finish. */
  stopPolling(): void {
    this.closing = true;
    this.poller?.stop();
  }

  /**
   * Waits for running operations and the poll in progress, then unloads every model (each drains
   * first). New load and unload calls are refused from the start.
   */
  async close(): Promise<void> {
    this.stopPolling();
    await this.poller?.settled();
    await this.chains.idle();
    await Promise.all(
      this.registry.all().map((e) => this.serialize(e.name, () => this.steps.unload(e))),
    );
  }

  // ---- operations (each runs inside its model's chain) ----

  private async loadNow(
    name: string,
    override: LoadOverride | undefined,
    defer: DeferWork,
  ): Promise<void> {
    // A name the repositories do not hold, or a refused override, is answered without an entry.
    let source: Awaited<ReturnType<ModelManager['sourceFor']>>;
    try {
      source = await this.sourceFor(name, override);
    } catch (e) {
      throw this.steps.scrubbed(e);
    }
    const entry = this.entryFor(name);
    // A load call means the server is meant to serve the model: a failure counts for readiness.
    entry.want();
    let plan: LoadPlan | undefined;
    try {
      plan = await this.steps.plan(entry, source.source, source.override, override?.configJson);
    } catch (e) {
      throw this.steps.markFailed(entry, e);
    }
    if (plan === undefined) return; // nothing changed: Triton's load of a loaded model is a no-op
    // Loading an ensemble loads the models its steps name that do not serve yet, as in Triton.
    for (const dep of dependenciesOf(plan)) {
      if (dep === name || (this.registry.entry(dep)?.versions.size ?? 0) > 0) continue;
      try {
        await this.serialize(dep, (d) => this.loadNow(dep, undefined, d));
      } catch (e) {
        await plan.override?.remove();
        throw this.steps.markFailed(
          entry,
          fail(
            'MODEL_LOAD_FAILED',
            `ensemble '${name}' needs model '${dep}', which failed to load: ${this.steps.reason(e)}`,
          ),
        );
      }
    }
    const budget = this.steps.budget([plan]);
    defer((await this.steps.commit(plan, budget)).retired);
  }

  /** The schedulers of versions draining after a reload or an unload, which serve no new request. */
  leavingSchedulers(): Scheduler[] {
    return this.steps.leavingSchedulers();
  }

  // ---- helpers ----

  /** Runs `op` after every earlier operation on `name` (see OperationChains). */
  private serialize(name: string, op: (defer: DeferWork) => Promise<void>): Promise<void> {
    return this.chains.run(name, op);
  }

  private assertControl(): void {
    if (this.options.mode !== 'explicit') {
      throw fail(
        'MODEL_CONTROL_DISABLED',
        'explicit model load / unload is not allowed if polling is enabled',
      );
    }
    if (this.closing) throw fail('SHUTTING_DOWN', 'the server is shutting down');
  }

  private entryFor(name: string): ModelLifecycle {
    let entry = this.registry.entry(name);
    if (entry === undefined) {
      entry = new ModelLifecycle(name);
      this.registry.add(entry);
    }
    return entry;
  }

  /** The model directory for a load: the load call's private one, or the repository's. */
  private async sourceFor(
    name: string,
    override: LoadOverride | undefined,
  ): Promise<{ source: ModelSource; override: OverrideDirectory | undefined }> {
    if (override !== undefined && override.files.size > 0) {
      if (override.configJson === undefined) {
        throw fail(
          'BAD_PARAMETER',
          `failed to load '${name}', file overrides need the "config" parameter as well`,
        );
      }
      const dir = await writeOverrideDirectory(name, override.files);
      return {
        source: { name, dir: dir.modelDir, versions: await listVersions(dir.modelDir) },
        override: dir,
      };
    }
    const sources = await this.scanAll();
    const source = sources.get(name);
    if (source === undefined) throw notInRepository(name);
    if (source instanceof Error) throw source;
    return { source, override: undefined };
  }

  /** Every model directory of every repository; a name in two repositories maps to an error. */
  private scanAll(): Promise<Map<string, ModelSource | InferenceServerError>> {
    const { logger } = this.options;
    return scanRepositories(this.options.repositories, (directory, reason) =>
      logger.debug({ directory }, `skipped: ${reason}`),
    );
  }
}

function notInRepository(name: string): InferenceServerError {
  return fail(
    'MODEL_NOT_FOUND',
    `failed to load '${name}', model not found in any model repository`,
  );
}

/**
 * A load's error as Triton words it: "failed to load '<model>', <reason>" (its model repository
 * manager prefixes every load failure so), keeping the code. Clients and scripts match the prefix
 * (Triton's own simple_http_model_control example does).
 */
function failedToLoad(name: string, e: unknown): InferenceServerError {
  const err = toServerError(e);
  if (err.message.startsWith(`failed to load '${name}'`)) return err;
  return new InferenceServerError(err.code, `failed to load '${name}', ${err.message}`);
}

/** The models a planned load's backend says must serve first (an ensemble's steps). */
function dependenciesOf(plan: LoadPlan): readonly string[] {
  return plan.configured.backend.dependencies(plan.configured.config);
}
