// A model version's instances: one `ModelInstance` (a worker thread owning one ORT session, or one
// JavaScript model's module for `backend: "javascript"`) per instance of each instance group its
// backend planned (per GPU for GPU groups; each backend's plan is its own, run-channel.ts). The pool is ready only when every instance has its session; it gives
// each instance one run at a time, holds runs while no instance is free, and closes only after
// in-flight runs finish. Replacing lost workers is model-instance.ts.
//
// Never terminate a worker that may be inside ORT. Verified with onnxruntime-node 1.30 on Node 20:
// destroying a piscina pool (or aborting a task through an AbortSignal) while session.run is
// executing kills the whole process with SIGABRT ("terminate called after throwing an instance of
// 'Napi::Error'"). Hence: no AbortSignal is ever passed to piscina, `close()` waits for in-flight
// runs and for sessions still being created, and a failed load tears the workers down only after
// every worker has reported.

import path from 'node:path';
import type { ModelIO } from '../config/read-model-io.js';
import { fail } from '../errors.js';
import type { WireError } from '../errors.js';
import { FINALIZE_TASK } from './messages.js';
import type { RunRequest, RunResponse, WarmupRun, WorkerInit } from './messages.js';
import type { RunScope } from './run-scope.js';
import type { InstanceGate } from './instance-gate.js';
import type { InstanceGroup, WorkerBackend } from './run-channel.js';
import type { InstanceContext, SessionReadyEvent } from './instance-context.js';
import { ModelInstance } from './model-instance.js';
import { resolveSabTensors } from './onnxruntime/sab-capability.js';
import { scrubMessage } from './worker-errors.js';
import { RESTART_CLOCK, type RestartClock } from './restart-backoff.js';
import type { ThreadReading } from '../metrics/thread-sampler.js';

/** The subset of a pino logger the pool uses. */
export interface PoolLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** `G`: the backend's plan of one instance group (an ORT group's carries its session plan). */
export interface InstancePoolInit<G extends InstanceGroup = InstanceGroup> {
  readonly model: string;
  readonly version: number;
  /** Absolute path of the model file (never shown to clients). */
  readonly modelPath: string;
  readonly groups: readonly G[];
  /**
   * 'auto' (default) probes whether ORT takes SharedArrayBuffer-backed tensors; `false` forces the
   * copy path and `true` direct wrapping (tests cover both paths with it).
   */
  readonly sabTensors?: boolean | 'auto';
  /**
   * The backend's workers and their run hand-off (run-channel.ts): ONNX Runtime's
   * (onnxruntime/ort-workers.ts) or JavaScript's (javascript/js-workers.ts).
   */
  readonly backend: WorkerBackend<G>;
  /**
   * `model_warmup` runs every worker performs before it reports ready (inputs in shared memory the
   * caller keeps alive until start() settles). A failing warmup fails the load, as in Triton.
   */
  readonly warmup?: readonly WarmupRun[];
  readonly logger?: PoolLogger;
  /** The metrics interval's tick, for the workers' readings (WorkerInit); absent: no metrics. */
  readonly readingsTick?: SharedArrayBuffer;
  /** Tests only: the restart back-off's clock (default: the real one, RESTART_CLOCK). */
  readonly clock?: RestartClock;
  /** The server's rate limiter for this version's instances (absent: --rate-limit=off). */
  readonly gate?: InstanceGate;
}

/** Triton's name of instance `k` of a group: the group's own when it has one instance. */
export function instanceName(group: InstanceGroup, k: number): string {
  return group.count > 1 ? `${group.instance}_${k}` : group.instance;
}

/** The instances of one group plan. */
interface Group {
  readonly spec: InstanceGroup;
  readonly instances: readonly ModelInstance[];
}

/** A run waiting for a free instance: gets one, or the error that ends its wait. */
type Waiting = (got: ModelInstance | WireError) => void;

/** `G`: its backend's plan of one instance group (InstancePoolInit). */
export class InstancePool<G extends InstanceGroup = InstanceGroup> {
  private closing = false;
  private closed: Promise<void> | undefined;
  private inFlightTotal = 0;
  private readonly groups: readonly Group[];
  private readonly instances: readonly ModelInstance[];
  private readonly waiting: Waiting[] = [];
  private readonly waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  private readonly restartListeners: Array<() => void> = [];
  /** The model's inputs and outputs as the first ready session reported them. */
  private io: ModelIO | undefined;
  private readonly backend: WorkerBackend<G>;
  private readonly gate: InstanceGate | undefined;

  private constructor(
    private readonly init: InstancePoolInit<G>,
    sabTensors: boolean,
  ) {
    this.backend = init.backend;
    this.gate = init.gate;
    const shown = `${init.model}/${init.version}/${path.basename(init.modelPath)}`;
    this.groups = init.groups.map((spec) => {
      const common: WorkerInit = {
        model: init.model,
        version: init.version,
        instance: spec.instance,
        modelPath: init.modelPath,
        sabTensors,
        warmup: init.warmup ?? [],
        ...(init.readingsTick !== undefined && { readingsTick: init.readingsTick }),
      };
      const ctx: InstanceContext = {
        model: init.model,
        version: init.version,
        group: spec.instance,
        backend: this.backend,
        workerData: this.backend.workerData(common, spec),
        clock: init.clock ?? RESTART_CLOCK,
        scrub: (m) => scrubMessage(m, init.modelPath, shown),
        log: (level, msg) => this.log(level, msg),
        sessionReady: (instance, event, replacement) =>
          this.sessionReady(spec, instance, event, replacement),
        changed: () => this.notify(),
        restarted: () => {
          for (const listener of this.restartListeners) listener();
        },
      };
      const instances = Array.from(
        { length: spec.count },
        (_, k) => new ModelInstance(instanceName(spec, k), ctx),
      );
      return { spec, instances };
    });
    this.instances = this.groups.flatMap((g) => g.instances);
  }

  /**
   * Starts every worker and resolves once all sessions exist. Fails before any worker starts when
   * the backend's check of the groups fails (ORT: PROVIDER_UNAVAILABLE when a plan needs a provider
   * the binding lacks), and with MODEL_LOAD_FAILED (carrying the worker's scrubbed message) when any
   * worker cannot create its session.
   */
  static async start<G extends InstanceGroup>(init: InstancePoolInit<G>): Promise<InstancePool<G>> {
    init.backend.checkGroups(init.groups);
    const sabTensors = await resolveSabTensors(init.sabTensors ?? 'auto');
    const pool = new InstancePool(init, sabTensors);

    // Every initial worker reports once (or dies trying) before anything is decided, so a failed
    // load never destroys a sibling that is still inside InferenceSession.create.
    await pool.until(() => pool.instances.every((i) => i.startReported()));
    const failed = pool.instances.find((i) => i.startFailure !== undefined);
    if (failed !== undefined) {
      await pool.close();
      const group = pool.groups.find((g) => g.instances.includes(failed))?.spec.instance;
      throw fail(
        'MODEL_LOAD_FAILED',
        `failed to load model "${init.model}" version ${init.version} instance ` +
          `${group ?? failed.name}: ${failed.startFailure ?? 'unknown error'}`,
      );
    }
    for (const i of pool.instances) i.serve();
    pool.log(
      'info',
      `loaded ${pool.capacity} instance(s) (${sabTensors ? 'direct' : 'copied'} SAB inputs)`,
    );
    return pool;
  }

  /**
   * One reading per instance worker, labelled `worker-<model>-<version>-<instance>` (stable across
   * a worker's replacements): its busy share since the previous call (ThreadMetrics calls this
   * once per metrics interval) and the heap it last reported.
   */
  threadReadings(): Array<readonly [string, ThreadReading]> {
    const atNs = Number(process.hrtime.bigint());
    const label = (i: ModelInstance): string =>
      `worker-${this.init.model}-${this.init.version}-${i.name}`;
    return this.instances.map((i) => [label(i), i.readings.reading(atNs)] as const);
  }

  /** Calls `listener` each time a worker is started to replace a lost one. */
  onInstanceRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  /** The inputs and outputs of the model the sessions opened (set once the pool has started). */
  get modelIO(): ModelIO {
    if (this.io === undefined) throw fail('INTERNAL', 'instance pool has no ready session');
    return this.io;
  }

  /** Instances that can run at once. */
  get capacity(): number {
    return this.instances.length;
  }

  /**
   * An ORT worker reads a run's inputs only until it answers (outputs are copied out of ORT); a
   * JavaScript model's code may keep views of them, so its inputs are never reused.
   */
  get inputsFreeAfterRun(): boolean {
    return this.backend.inputsFreeAfterRun;
  }

  /** Runs accepted and not yet answered (running, or waiting for a free instance). */
  get inFlight(): number {
    return this.inFlightTotal;
  }

  /** Every instance has a live session (false while a lost worker's replacement is not ready). */
  get ready(): boolean {
    return !this.closing && this.instances.every((i) => i.state === 'ready');
  }

  /**
   * Resolves when every instance has a live session again (immediately if it has): after a worker
   * was lost, once its replacement has created its session. Never resolves after close().
   */
  whenReady(): Promise<void> {
    return this.until(() => this.ready);
  }

  /**
   * Runs one request on a free instance. The scheduler calls this only while `inFlight < capacity`;
   * a run always completes (there is no cancellation once started). While an instance is being
   * replaced the run waits for a free one (the replacement, or another instance); when no instance
   * is up or starting (replacements failing, waiting out their back-off) it fails at once with
   * MODEL_NOT_READY. A worker lost during the run fails that run with WORKER_FAILED.
   */
  async run(
    req: RunRequest,
    scope?: RunScope,
    transfer?: readonly ArrayBuffer[],
  ): Promise<RunResponse> {
    if (this.closing) return { ok: false, error: this.unloading() };
    this.inFlightTotal++;
    try {
      const got = await this.acquire();
      if (!(got instanceof ModelInstance)) return { ok: false, error: got };
      // With the rate limiter on, the instance (busy from here) waits for its resources; off, the
      // gate is absent and the run starts at once, as it always did.
      const gate = this.gate;
      if (gate !== undefined) {
        const wait = gate.admit(got.name);
        if (wait !== undefined) await wait;
      }
      try {
        return await got.execute(req, scope, transfer);
      } finally {
        gate?.release(got.name);
        got.busy = false;
      }
    } finally {
      this.inFlightTotal--;
      this.notify();
    }
  }

  /** A free ready instance, marked busy; else a place in line (first come, first served). */
  private acquire(): Promise<ModelInstance | WireError> {
    if (this.waiting.length === 0) {
      const free = this.claim();
      if (free !== undefined) return Promise.resolve(free);
      const down = this.noneRunning();
      if (down !== undefined) return Promise.resolve(down);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * The group with the most free ready instances (first on ties) gives one, so groups fill evenly;
   * with the rate limiter on, the free instance it ranks first (Triton's order of free instances).
   */
  private claim(): ModelInstance | undefined {
    if (this.gate !== undefined) return this.claimRanked(this.gate);
    let best: ModelInstance[] = [];
    for (const g of this.groups) {
      const free = g.instances.filter((i) => i.state === 'ready' && !i.busy);
      if (free.length > best.length) best = free;
    }
    const chosen = best[0];
    if (chosen !== undefined) chosen.busy = true;
    return chosen;
  }

  private claimRanked(gate: InstanceGate): ModelInstance | undefined {
    let chosen: ModelInstance | undefined;
    let rank = Infinity;
    for (const i of this.instances) {
      if (i.state !== 'ready' || i.busy) continue;
      const r = gate.rank(i.name);
      if (r < rank) {
        chosen = i;
        rank = r;
      }
    }
    if (chosen !== undefined) chosen.busy = true;
    return chosen;
  }

  /** The error for waiting runs when no instance is ready or starting, else undefined. */
  private noneRunning(): WireError | undefined {
    if (this.instances.some((i) => i.state === 'ready' || i.state === 'loading')) return undefined;
    if (this.closing) return this.unloading();
    const why = this.instances.find((i) => i.lastFailure !== undefined);
    const reason = why === undefined ? '' : ` (instance ${why.name}: ${why.lastFailure ?? ''})`;
    const wait = why?.backoff;
    const next =
      wait === undefined
        ? ''
        : ` (next attempt in ${(wait.remainingMs / 1000).toFixed(2)} s, after ${wait.failures} ` +
          `consecutive failures)`;
    return {
      code: 'MODEL_NOT_READY',
      message:
        `model "${this.init.model}" version ${this.init.version} is not ready: no instance is ` +
        `running${reason}; it is being restarted${next}`,
    };
  }

  private unloading(): WireError {
    return {
      code: 'MODEL_NOT_READY',
      message: `model "${this.init.model}" version ${this.init.version} is unloading`,
    };
  }

  private sessionReady(
    spec: InstanceGroup,
    instance: ModelInstance,
    event: SessionReadyEvent,
    replacement: boolean,
  ): void {
    this.io ??= event.io;
    if (event.warmupRuns > 0) {
      const ms = (event.warmupNs / 1e6).toFixed(1);
      this.log(
        'info',
        `instance ${spec.instance} ran ${event.warmupRuns} warmup request(s) in ${ms} ms`,
      );
    }
    if (replacement) this.log('info', `replacement instance of ${instance.name} is ready`);
  }

  /**
   * Stops taking runs, waits for in-flight runs (those waiting for an instance are still served) and
   * for any worker still creating its session, then destroys the workers. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= this.drainAndDestroy();
    return this.closed;
  }

  private async drainAndDestroy(): Promise<void> {
    this.closing = true;
    for (const i of this.instances) i.stopRestarting();
    this.notify();
    await this.until(() => this.inFlightTotal === 0 && this.instances.every((i) => i.settled()));
    if (this.backend.finalizes) {
      await Promise.all(this.instances.map((i) => i.finalize(FINALIZE_TASK)));
    }
    await Promise.all(this.instances.map((i) => i.destroy()));
  }

  private until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  /** Something changed: hand free instances to waiting runs, then wake whoever waits on a state. */
  private notify(): void {
    while (this.waiting.length > 0) {
      const free = this.claim();
      if (free === undefined) break;
      this.waiting.shift()?.(free);
    }
    const down = this.waiting.length > 0 ? this.noneRunning() : undefined;
    if (down !== undefined) for (const w of this.waiting.splice(0)) w(down);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (w !== undefined && w.check()) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private log(level: keyof PoolLogger, msg: string): void {
    this.init.logger?.[level](`model "${this.init.model}" v${this.init.version}: ${msg}`);
  }
}
