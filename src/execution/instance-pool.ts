// A model version's instances: one piscina pool per instance-group plan (per GPU for GPU groups),
// each worker owning one ORT session. The pool is ready only when every worker has created its
// session; it runs one request per instance at a time; it closes only after in-flight runs finish.
//
// Never terminate a worker that may be inside ORT. Verified with onnxruntime-node 1.30 on Node 20:
// destroying a piscina pool (or aborting a task through an AbortSignal) while session.run is
// executing kills the whole process with SIGABRT ("terminate called after throwing an instance of
// 'Napi::Error'"). Hence: no AbortSignal is ever passed to piscina, `close()` waits for in-flight
// runs and for sessions still being created, and a failed load tears the pools down only after
// every worker has reported.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ModelIO } from '../config/read-model-io.js';
import { fail } from '../errors.js';
import type { WireError } from '../errors.js';
import type { RunRequest, RunResponse, WarmupRun, WorkerEvent, WorkerInit } from './messages.js';
import { assertProvidersInstalled } from './provider-availability.js';
import { resolveSabTensors } from './sab-capability.js';
import type { InstanceGroupPlan } from './session-plan.js';
import { scrubMessage } from './worker-errors.js';

/** Compiled worker entry: dist/src/execution/ -> dist/workers/ort-worker.js. */
const WORKER_FILE = fileURLToPath(new URL('../../workers/ort-worker.js', import.meta.url));

/** The subset of a pino logger the pool uses. */
export interface PoolLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface InstancePoolInit {
  readonly model: string;
  readonly version: number;
  /** Absolute path of the .onnx file (never shown to clients). */
  readonly modelPath: string;
  readonly groups: readonly InstanceGroupPlan[];
  /**
   * 'auto' (default) probes whether ORT takes SharedArrayBuffer-backed tensors; `false` forces the
   * copy path and `true` direct wrapping (tests cover both paths with it).
   */
  readonly sabTensors?: boolean | 'auto';
  /**
   * `model_warmup` runs every worker performs before it reports ready (inputs in shared memory the
   * caller keeps alive until start() settles). A failing warmup fails the load, as in Triton.
   */
  readonly warmup?: readonly WarmupRun[];
  readonly logger?: PoolLogger;
  /**
   * Tests only: a worker module to run instead of workers/ort-worker.js (a fixture that wraps the
   * real handler to make a worker exit on cue). Production code never sets it.
   */
  readonly workerFile?: string;
}

type SessionState =
  { readonly state: 'ready' } | { readonly state: 'failed'; readonly error: WireError };

function isWorkerEvent(m: unknown): m is WorkerEvent {
  if (typeof m !== 'object' || m === null) return false;
  const type = (m as { type?: unknown }).type;
  return type === 'infernode:session-ready' || type === 'infernode:session-failed';
}

/** One piscina pool: `count` identical workers of one group plan. */
class GroupPool {
  readonly sessions = new Map<number, SessionState>();
  /** Worker errors seen during start-up (a worker that died before it could report). */
  readonly startupErrors: string[] = [];
  inFlight = 0;
  /** The workers piscina started with; replacements spawned later have other thread ids. */
  private readonly initialThreads: ReadonlySet<number>;

  constructor(
    readonly spec: InstanceGroupPlan,
    readonly piscina: Piscina,
  ) {
    this.initialThreads = new Set(piscina.threads.map((w) => w.threadId));
  }

  /**
   * No initial worker is still inside session creation: each has reported or is gone. Replacements
   * of workers that died at start-up are not waited for: they die the same way (a broken worker
   * module) before reaching ORT, and piscina would keep replacing them, so waiting could not end.
   */
  initialSettled(): boolean {
    return this.piscina.threads.every(
      (w) => !this.initialThreads.has(w.threadId) || this.sessions.has(w.threadId),
    );
  }

  /** Every current worker has reported (ready or failed): nobody is inside session creation. */
  settled(): boolean {
    return this.piscina.threads.every((w) => this.sessions.has(w.threadId));
  }

  reportedAtStart(): number {
    return this.sessions.size + this.startupErrors.length;
  }

  allReady(): boolean {
    const threads = this.piscina.threads;
    return (
      threads.length === this.spec.count &&
      threads.every((w) => this.sessions.get(w.threadId)?.state === 'ready')
    );
  }

  firstFailure(): string | undefined {
    for (const s of this.sessions.values()) if (s.state === 'failed') return s.error.message;
    return this.startupErrors[0];
  }
}

export class InstancePool {
  private closing = false;
  private closed: Promise<void> | undefined;
  private inFlightTotal = 0;
  private readonly waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  /** The model's inputs and outputs as the first ready session reported them. */
  private io: ModelIO | undefined;

  private constructor(
    private readonly init: InstancePoolInit,
    private readonly pools: readonly GroupPool[],
  ) {}

  /**
   * Starts every worker and resolves once all sessions exist. Fails with PROVIDER_UNAVAILABLE before
   * any worker starts when a plan needs a provider the binding lacks, and with MODEL_LOAD_FAILED
   * (carrying the worker's scrubbed ORT message) when any worker cannot create its session.
   */
  static async start(init: InstancePoolInit): Promise<InstancePool> {
    for (const g of init.groups) assertProvidersInstalled(g.plan);
    const sabTensors = await resolveSabTensors(init.sabTensors ?? 'auto');
    const pools = init.groups.map((spec) => {
      const workerData: WorkerInit = {
        model: init.model,
        version: init.version,
        instance: spec.instance,
        modelPath: init.modelPath,
        plan: spec.plan,
        sabTensors,
        warmup: init.warmup ?? [],
      };
      const piscina = new Piscina({
        filename: init.workerFile ?? WORKER_FILE,
        workerData,
        minThreads: spec.count,
        maxThreads: spec.count,
        // One run per session at a time, as in Triton (an instance executes one batch at a time).
        concurrentTasksPerWorker: 1,
        idleTimeout: Infinity,
      });
      return new GroupPool(spec, piscina);
    });
    const pool = new InstancePool(init, pools);
    for (const g of pools) pool.listen(g);

    // Every initial worker reports once (or dies trying) before anything is decided, so a failed
    // load never destroys a sibling that is still inside InferenceSession.create.
    await pool.until(() => pools.every((g) => g.reportedAtStart() >= g.spec.count));
    const failed = pools.find((g) => g.firstFailure() !== undefined);
    if (failed !== undefined) {
      await pool.until(() => pools.every((g) => g.initialSettled()));
      await Promise.all(pools.map((g) => g.piscina.destroy()));
      throw fail(
        'MODEL_LOAD_FAILED',
        `failed to load model "${init.model}" version ${init.version} instance ` +
          `${failed.spec.instance}: ${failed.firstFailure() ?? 'unknown error'}`,
      );
    }
    pool.log(
      'info',
      `loaded ${pool.capacity} instance(s) (${sabTensors ? 'direct' : 'copied'} SAB inputs)`,
    );
    return pool;
  }

  private listen(g: GroupPool): void {
    g.piscina.on('message', (m: unknown) => {
      if (!isWorkerEvent(m)) return;
      if (m.type === 'infernode:session-ready') {
        g.sessions.set(m.threadId, { state: 'ready' });
        this.io ??= m.io;
        if (m.warmupRuns > 0) {
          const ms = (m.warmupNs / 1e6).toFixed(1);
          this.log(
            'info',
            `instance ${g.spec.instance} ran ${m.warmupRuns} warmup request(s) in ${ms} ms`,
          );
        }
        if (g.reportedAtStart() > g.spec.count) {
          this.log('info', `replacement instance of ${g.spec.instance} is ready`);
        }
      } else {
        g.sessions.set(m.threadId, { state: 'failed', error: m.error });
        this.log('error', `instance ${g.spec.instance} failed to load: ${m.error.message}`);
      }
      this.notify();
    });
    // piscina emits 'error' when a worker dies with no task to fail; without a listener that
    // would be thrown in the main thread. The worker is replaced (see run()).
    g.piscina.on('error', (e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      if (g.sessions.size + g.startupErrors.length < g.spec.count) {
        // This one can become a client-visible load failure: no paths in it.
        const shown = `${this.init.model}/${this.init.version}/${path.basename(this.init.modelPath)}`;
        g.startupErrors.push(scrubMessage(message, this.init.modelPath, shown));
      }
      this.log('error', `an instance worker of ${g.spec.instance} died: ${message}`);
      this.notify();
    });
  }

  /** Instances that can run at once. */
  /** The inputs and outputs of the model the sessions opened (set once the pool has started). */
  get modelIO(): ModelIO {
    if (this.io === undefined) throw fail('INTERNAL', 'instance pool has no ready session');
    return this.io;
  }

  get capacity(): number {
    return this.init.groups.reduce((a, g) => a + g.count, 0);
  }

  get inFlight(): number {
    return this.inFlightTotal;
  }

  /** Every instance has a live session (false while a crashed worker's replacement is loading). */
  get ready(): boolean {
    return !this.closing && this.pools.every((g) => g.allReady());
  }

  /**
   * Resolves when every instance has a live session again (immediately if it has): after a worker
   * died, once piscina's replacement has created its session. Never resolves after close().
   */
  whenReady(): Promise<void> {
    return this.until(() => this.ready);
  }

  /**
   * Runs one request on a free instance. The scheduler calls this only while `inFlight < capacity`;
   * a run always completes (there is no cancellation once started). A worker that dies mid-run
   * fails that run with WORKER_FAILED; piscina starts a replacement.
   */
  async run(req: RunRequest): Promise<RunResponse> {
    if (this.closing) {
      return {
        ok: false,
        error: {
          code: 'MODEL_NOT_READY',
          message: `model "${this.init.model}" version ${this.init.version} is unloading`,
        },
      };
    }
    const g = this.pick();
    g.inFlight++;
    this.inFlightTotal++;
    try {
      return (await g.piscina.run(req)) as RunResponse;
    } catch (e) {
      this.log('error', `instance of ${g.spec.instance} failed during a run: ${String(e)}`);
      return {
        ok: false,
        error: {
          code: 'WORKER_FAILED',
          message:
            `an instance of model "${this.init.model}" version ${this.init.version} exited ` +
            `during the request; it is being replaced`,
        },
      };
    } finally {
      g.inFlight--;
      this.inFlightTotal--;
      this.notify();
    }
  }

  /** The group with the most free instances (first on ties), so groups fill evenly. */
  private pick(): GroupPool {
    let best: GroupPool | undefined;
    for (const g of this.pools) {
      if (best === undefined || g.spec.count - g.inFlight > best.spec.count - best.inFlight)
        best = g;
    }
    if (best === undefined) throw fail('INTERNAL', 'instance pool has no instance groups');
    return best;
  }

  /**
   * Stops taking runs, waits for in-flight runs and for any replacement worker still creating its
   * session, then destroys the workers. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= this.drainAndDestroy();
    return this.closed;
  }

  private async drainAndDestroy(): Promise<void> {
    this.closing = true;
    await this.until(() => this.inFlightTotal === 0 && this.pools.every((g) => g.settled()));
    await Promise.all(this.pools.map((g) => g.piscina.destroy()));
  }

  private until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  private notify(): void {
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
