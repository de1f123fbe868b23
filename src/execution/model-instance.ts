// One model instance: a worker thread owning one ORT session, and what keeps it serving. Each worker
// runs in a piscina pool of its own, built with no minimum thread count so that piscina never
// replaces a worker by itself: piscina 5.3 replaces a worker that dies after starting at once, with
// no back-off, and after one dies while starting it stops replacing for good, leaving its queued
// tasks waiting forever. This class starts every worker, and after a loss (worker-loss.ts says what
// each loss is and how it is worded) retires it and starts the next one at once or after a back-off
// (restart-backoff.ts).
//
// How runs reach the worker is the backend's (run-channel.ts): each worker gets a run channel from
// its backend when it starts, closed when it is lost or destroyed. An ORT worker serves its runs
// over a doorbell (onnxruntime/ort-workers.ts, doorbell.ts) once its session is ready: one
// long-running piscina task per worker, which is how piscina keeps owning the thread. The loss rules
// hold unchanged: the serve task rejects when the thread dies (WORKER_FAILED, replaced) or the
// handler throws (WORKER_FAILED, recycled), and the run outstanding on it gets that rejection; the
// serve task is stopped before its pool is destroyed, between runs, never inside session.run.
//
// A worker whose backend sets limits (a JavaScript model's: it holds no ORT session) has three more
// rules: a worker not ready within `limits.startMs` (a hanging initialize()) is terminated, failing
// the load or, for a replacement, retried after the back-off; a run that outlives `limits.runMs` is
// answered MODEL_EXECUTE_TIMEOUT and its worker is terminated and replaced (safe: nothing else can
// stop user code stuck in a loop), at once unless it keeps hanging; and destroy() first asks the
// worker to call the model's finalize() (`finalizes`), bounded by the run limit.

import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { WireError } from '../errors.js';
import type { InstanceContext, InstanceState } from './instance-context.js';
import type { RunRequest, RunResponse, WorkerEvent } from './messages.js';
import type { RunChannel } from './run-channel.js';
import type { RunScope } from './run-scope.js';
import { STARTED_TASK } from './messages.js';
import { reclaimAfterLarge } from '../memory/reclaim-after-large.js';
import { RestartSchedule } from './restart-backoff.js';
import { nowNs } from '../trace/stage-trace.js';
import { settleWithin } from './settle-within.js';
import { InstanceReadings } from './worker-readings.js';
import { describeError, type WorkerLoss, WorkerLosses } from './worker-loss.js';

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

export class ModelInstance {
  state: InstanceState = 'loading';
  /** A run is executing on it (the pool sets and clears this around `execute`). */
  busy = false;
  /** Set during the pool's start only: the first failure, which fails the model's load. */
  startFailure: string | undefined;
  /** Client-safe: why the last worker was lost, while no worker is up. */
  lastFailure: string | undefined;
  /** Its workers' busy time and heap, which its pool reads per metrics interval. */
  readonly readings = new InstanceReadings();

  /** False while the pool starts: a loss then fails the load instead of being replaced. */
  private serving = false;
  private closing = false;
  private piscina!: Piscina;
  /** The current worker; undefined once it is lost, until the next one starts. */
  private worker: Worker | undefined;
  private session: 'pending' | 'ready' | 'failed' = 'pending';
  private workersStarted = 0;
  private lastLoss: { readonly worker: Worker; readonly cause: string } | undefined;
  private readonly restarts: RestartSchedule;
  /** How each way of losing a worker is worded and counted by the back-off (worker-loss.ts). */
  private readonly losses: WorkerLosses;
  /** Bounds the current worker's start (its backend's `limits.startMs`). */
  private startTimer: NodeJS.Timeout | undefined;
  /** The lost worker's pool being destroyed, and the replacement that waits for it. */
  private retiring: Promise<void> = Promise.resolve();
  private replacing: Promise<void> | undefined;
  /** The current worker's run hand-off, from its backend. */
  private channel!: RunChannel;
  private runs = 0;

  constructor(
    /** Triton-style: the group name, suffixed `_<k>` when the group has several instances. */
    readonly name: string,
    private readonly ctx: InstanceContext,
  ) {
    this.restarts = new RestartSchedule(ctx.clock);
    this.losses = new WorkerLosses(name, ctx);
    this.startWorker();
  }

  /** `instance add_0 of model "add" version 1`, for messages. */
  private get where(): string {
    return `instance ${this.name} of model "${this.ctx.model}" version ${this.ctx.version}`;
  }

  /** The pool has started: from now on a lost worker is replaced. */
  serve(): void {
    this.serving = true;
  }

  /** The worker reported its session (ready or failed) or died: start-up can decide. */
  startReported(): boolean {
    return this.session !== 'pending' || this.startFailure !== undefined;
  }

  /** Nothing is running or being created: the instance can be destroyed without aborting ORT. */
  settled(): boolean {
    const creating = this.worker !== undefined && this.session === 'pending';
    return !this.busy && !creating && this.replacing === undefined;
  }

  /**
   * Runs `req` on this instance's worker (the caller has made it busy). Never throws: a worker lost
   * during the run gives WORKER_FAILED, naming the instance and what happened.
   */
  async execute(
    req: RunRequest,
    scope?: RunScope,
    transfer?: readonly ArrayBuffer[],
  ): Promise<RunResponse> {
    const { piscina, worker, channel } = this;
    const where = this.where;
    if (worker === undefined || this.state !== 'ready') {
      // The pool hands out ready instances only; running here would make piscina start a worker.
      return { ok: false, error: { code: 'INTERNAL', message: `${where} is not ready` } };
    }
    const id = ++this.runs;
    const postNs = req.trace === true ? nowNs() : 0;
    let done: (() => void) | undefined;
    try {
      const transferList = transfer === undefined ? undefined : [...transfer];
      const run = channel.run(req, id, scope, transferList);
      done = run.done;
      let response = await this.bounded(run.task, worker, where);
      if (response.ok) this.readings.ran(response.timing);
      if (postNs !== 0) response = withMainStamps(response, postNs, nowNs());
      // Only the worker's own reply counts: a timeout's reply comes after its worker was abandoned.
      if (this.worker === worker) this.restarts.answered();
      reclaimAfterLarge.note(runBytes(req, response), this.#reclaim);
      return response;
    } catch (e) {
      if (piscina.threads.includes(worker)) {
        // The task handler threw: retire the (idle) worker and start another.
        this.drop(worker, this.losses.handlerThrew(e, this.session === 'ready'));
        return { ok: false, error: this.losses.threwReply(where, e) };
      }
      // The thread died: its own 'exit' or 'error' listener has seen it first, with the cause.
      const cause = this.lastLoss?.worker === worker ? this.lastLoss.cause : describeError(e);
      this.lost(worker, cause);
      return { ok: false, error: this.losses.diedReply(where, cause) };
    } finally {
      done?.();
    }
  }

  /**
   * `task`, or after `limits.runMs` (when set) a MODEL_EXECUTE_TIMEOUT reply, the worker being
   * terminated and replaced; the task's own rejection, which the termination causes, is dropped.
   */
  private bounded(task: Promise<RunResponse>, worker: Worker, where: string): Promise<RunResponse> {
    const ms = this.ctx.backend.limits?.runMs;
    if (ms === undefined) return task;
    return settleWithin(task, ms, () => {
      this.drop(worker, this.losses.runTimedOut(`execute() did not settle within ${ms} ms`));
      return { ok: false, error: this.losses.timedOutReply(where, ms) };
    });
  }

  /**
   * Asks the worker to run the model's finalize() (JavaScript models, before destroy). Bounded by
   * `limits.runMs`; a failure or a timeout is logged and the instance is destroyed anyway.
   */
  async finalize(task: string): Promise<void> {
    const { piscina, worker } = this;
    if (worker === undefined || this.state !== 'ready') return;
    const ms = this.ctx.backend.limits?.runMs ?? 0;
    const done = (piscina.run(null, { name: task }) as Promise<{ ok: boolean; error?: WireError }>)
      .then((r) => (r.ok ? undefined : (r.error?.message ?? 'finalize() failed')))
      .catch((e: unknown) => this.ctx.scrub(describeError(e)));
    const problem = await settleWithin<string | undefined>(
      done,
      ms,
      () => `finalize() did not settle within ${ms} ms`,
    );
    if (problem !== undefined) this.ctx.log('error', `instance ${this.name}: ${problem}`);
  }

  /**
   * After a large run (reclaim-after-large.ts): the worker drops its scratch and collects its
   * garbage. Only on an idle, ready instance, marked busy meanwhile so the pool neither hands it a
   * run nor destroys it mid-task; a busy instance is skipped (its next large run asks again).
   */
  readonly #reclaim = (): void => {
    if (this.busy || this.state !== 'ready' || this.worker === undefined) return;
    this.busy = true;
    this.channel
      .reclaim()
      .catch(() => undefined) // a lost worker is handled by its own exit listener
      .finally(() => {
        this.busy = false;
        this.ctx.changed();
      });
  };

  /**
   * While the instance waits out a back-off: its consecutive failures and the time left before the
   * next attempt (for the MODEL_NOT_READY message). Undefined otherwise.
   */
  get backoff(): { readonly failures: number; readonly remainingMs: number } | undefined {
    return this.state === 'waiting' ? this.restarts.pending : undefined;
  }

  /** Stops starting workers (the pool is closing); a worker being created still finishes. */
  stopRestarting(): void {
    this.closing = true;
    this.restarts.cancel();
  }

  /** Destroys the worker; call only once `settled()`, after `stopRestarting()`. */
  async destroy(): Promise<void> {
    this.stopRestarting();
    clearTimeout(this.startTimer);
    this.state = 'closed';
    this.worker = undefined;
    // Settled: the worker is parked between runs, so its channel stops at once.
    await this.channel.stop(`instance ${this.name} was unloaded`);
    await this.retiring;
    await this.piscina.destroy();
  }

  private startWorker(): void {
    const piscina = new Piscina({
      filename: this.ctx.backend.workerFile,
      workerData: { ...this.ctx.workerData, instanceName: this.name },
      // No minimum: piscina would otherwise replace a dead worker itself, at once and forever.
      minThreads: 0,
      maxThreads: 1,
      // One run per session at a time, as in Triton (an instance executes one batch at a time).
      concurrentTasksPerWorker: 1,
      idleTimeout: Infinity,
    });
    piscina.on('message', (m: unknown) => this.onWorkerEvent(piscina, m));
    // piscina re-emits an uncaught worker error as 'error' when no task is running; the worker's
    // own listeners below handle it. Without a listener it would be thrown in the main thread.
    piscina.on('error', () => {});
    // The first task makes piscina start the thread. If the worker dies before it runs, it stays
    // queued until this pool is destroyed, which rejects it: nothing waits on it.
    piscina.run(null, { name: STARTED_TASK }).then(
      () => {},
      () => {},
    );
    const worker = piscina.threads[0];
    if (worker === undefined) throw new Error('piscina did not start a worker'); // a bug
    this.piscina = piscina;
    this.channel = this.ctx.backend.openChannel(piscina, this.where);
    this.worker = worker;
    this.session = 'pending';
    this.restarts.started();
    this.state = 'loading';
    this.workersStarted++;
    let uncaught: string | undefined;
    worker.on('error', (e: unknown) => {
      uncaught = `uncaught ${describeError(e)}`;
      this.lost(worker, uncaught);
    });
    // Read now: a Worker's threadId is -1 once its thread has stopped.
    const tid = worker.threadId;
    worker.once('exit', (code: number) => {
      this.ctx.backend.threadEnded?.(tid);
      this.lost(worker, uncaught ?? `exit code ${code}`);
    });
    const limit = this.ctx.backend.limits?.startMs;
    if (limit !== undefined) {
      clearTimeout(this.startTimer);
      this.startTimer = setTimeout(() => this.startTimedOut(worker, limit), limit);
      this.startTimer.unref();
    }
  }

  /** The current worker's start outlived its backend's `limits.startMs` (`ms`). */
  private startTimedOut(worker: Worker, ms: number): void {
    this.startTimer = undefined;
    if (worker !== this.worker || this.session !== 'pending') return;
    this.session = 'failed';
    this.drop(worker, this.losses.startTimedOut(ms));
  }

  private onWorkerEvent(piscina: Piscina, m: unknown): void {
    if (piscina === this.piscina && this.channel.take(m, this.worker?.threadId ?? -1)) return;
    if (this.readings.take(m, piscina === this.piscina ? this.worker?.threadId : undefined)) return;
    if (piscina !== this.piscina || !isWorkerEvent(m)) return;
    if (this.worker === undefined || m.threadId !== this.worker.threadId) return;
    clearTimeout(this.startTimer);
    if (m.type === 'infernode:session-ready') {
      this.channel.sessionReady();
      this.session = 'ready';
      this.state = 'ready';
      this.restarts.ready();
      this.lastFailure = undefined;
      this.ctx.sessionReady(this, m, this.workersStarted > 1);
    } else {
      this.session = 'failed';
      if (this.serving) {
        // A replacement that cannot create its session is retired and tried again later.
        this.drop(this.worker, this.losses.sessionFailed(m.error.message));
        return;
      }
      // During the pool's start the worker is kept: the load fails, and the pool destroys it.
      this.startFailure ??= m.error.message;
      this.ctx.log('error', `instance ${this.ctx.group} failed to load: ${m.error.message}`);
    }
    this.ctx.changed();
  }

  /** The worker's thread is gone. Idempotent: its 'error', 'exit' and failed run all report it. */
  private lost(worker: Worker, cause: string): void {
    if (worker !== this.worker) return;
    this.lastLoss = { worker, cause };
    this.drop(worker, this.losses.threadDied(cause, this.session === 'ready', this.busy));
  }

  /**
   * The current worker is lost (`loss`, worker-loss.ts): its pool is retired, and the next worker
   * starts at once or after the back-off; before the pool serves, a loss with `atStart` fails the
   * load instead. A worker no longer current was dropped already: ignored.
   */
  private drop(worker: Worker, loss: WorkerLoss): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    // Pending only for a worker lost while starting; once its session reports, the timer is cleared.
    clearTimeout(this.startTimer);
    this.retire();
    if (!this.serving && loss.atStart !== undefined) {
      this.startFailure ??= loss.atStart.failure;
      this.ctx.log('error', loss.atStart.log);
      this.state = 'waiting';
    } else {
      if (loss.backoff.kind === 'lost') this.restarts.lost(loss.backoff.wasReady);
      else this.restarts.failedStart();
      this.lastFailure = loss.lastFailure;
      this.restartLater(loss.log);
    }
    this.ctx.changed();
  }

  /** Destroys the current pool (its worker is gone, or idle outside ORT) before the next starts. */
  private retire(): void {
    this.channel.close(`instance ${this.name} lost its worker`);
    const old = this.piscina;
    // piscina.destroy does not reject; the catch only keeps one failure from stalling the chain.
    this.retiring = this.retiring.then(() => old.destroy()).catch(() => {});
  }

  /** Logs the loss once, at error level, and starts the next worker at once or after the back-off. */
  private restartLater(what: string): void {
    if (this.closing) {
      this.state = 'closed';
      this.ctx.log('error', what);
      return;
    }
    const delay = this.restarts.delayMs();
    this.ctx.log(
      'error',
      `${what}; ${delay === 0 ? 'starting a replacement' : `next attempt in ${seconds(delay)} s`}`,
    );
    if (delay === 0) {
      this.state = 'loading';
      this.replacing = this.replace();
      return;
    }
    this.state = 'waiting';
    this.restarts.wait(delay, () => {
      this.state = 'loading';
      this.replacing = this.replace();
      this.ctx.changed();
    });
  }

  private async replace(): Promise<void> {
    await this.retiring;
    if (!this.closing) {
      this.ctx.restarted();
      this.startWorker();
    } else {
      this.state = 'closed';
    }
    this.replacing = undefined;
    this.ctx.changed();
  }
}

function isWorkerEvent(m: unknown): m is WorkerEvent {
  if (typeof m !== 'object' || m === null) return false;
  const type = (m as { type?: unknown }).type;
  return type === 'infernode:session-ready' || type === 'infernode:session-failed';
}

/** A traced run's reply with the main thread's moments added to the worker's stamps. */
function withMainStamps(response: RunResponse, postNs: number, resumeNs: number): RunResponse {
  if (!response.ok || response.timing.stamps === undefined) return response;
  const stamps = { ...response.timing.stamps, postNs, resumeNs };
  return { ...response, timing: { ...response.timing, stamps } };
}

/** The bytes a run held: its inputs, and its outputs when it succeeded. */
function runBytes(req: RunRequest, res: RunResponse): number {
  let bytes = 0;
  for (const d of req.inputs) bytes += d.byteLength;
  if (res.ok) for (const d of res.outputs) bytes += d.byteLength;
  return bytes;
}
