// The shutdown sequence, from the first signal to the exit status: a drain that balancers can
// follow (readiness fails at once, the listeners keep accepting for --drain-delay-secs, then close
// while what is in flight finishes), bounded as a whole by --exit-timeout-secs; and, when that
// runs out or a second signal comes, a stop that never aborts the process.
//
// Why the stop waits for runs: `InferenceSession.run` in onnxruntime-node is a synchronous native
// call on the worker thread, and ending the process or the worker while it is inside one
// (process.exit, worker.terminate, piscina.destroy alike) aborts the whole process with SIGABRT
// ("terminate called after throwing an instance of 'Napi::Error'": the binding's N-API calls fail
// when the run returns into a terminating isolate). Measured with onnxruntime-node 1.30 on Node 20
// and 24. A run is one batch, so the wait is bounded by one batch per instance.

import type { GrpcFrontEnd } from './grpc/grpc-server.js';
import type { FrontEnd } from './http/front-end.js';
import type { Logger } from './logger.js';
import type { MetricsServer } from './metrics/metrics-server.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { StreamingRoute } from './websocket/ws-route.js';

export interface ShutdownParts {
  readonly logger: Logger;
  /** From `beginDrain()` on the server reports not ready and refuses loads and unloads. */
  readonly dataPlane: { beginDrain(): void };
  /** `close()` unloads every model: each pool stops its workers only once no run is in flight. */
  readonly models: { stopPolling(): void; close(): Promise<void> };
  /** The schedulers of every model version serving now. */
  schedulers(): readonly Scheduler[];
  readonly http: FrontEnd;
  /** The WebSocket endpoint of every front-end thread: closes each socket with 1001 once answered. */
  readonly websocket: Pick<StreamingRoute, 'shutdown'> | undefined;
  readonly grpc: GrpcFrontEnd | undefined;
  readonly metrics: MetricsServer | undefined;
  /** --drain-delay-secs in ms: how long the listeners keep accepting after readiness fails. */
  readonly drainDelayMs: number;
}

export class ShutdownSequence {
  readonly #parts: ShutdownParts;
  #done: Promise<boolean> | undefined;
  /** Why the drain was cut short, once it was. */
  #cutReason: string | undefined;
  #wakeOnCut: (() => void)[] = [];

  constructor(parts: ShutdownParts) {
    this.#parts = parts;
  }

  /**
   * Runs the sequence once (later calls return the same promise), for at most `timeoutMs` before
   * the drain is cut short. Resolves true when everything drained, false when it was cut short;
   * either way the workers have stopped and every socket is closed. Never rejects.
   */
  run(timeoutMs: number): Promise<boolean> {
    this.#done ??= this.#run(timeoutMs);
    return this.#done;
  }

  /**
   * Cuts the drain short now (a second signal), starting the sequence with `timeoutMs` if it has
   * not begun. Resolves as `run` does.
   */
  cutShort(reason: string, timeoutMs: number): Promise<boolean> {
    this.#cut(reason);
    return this.run(timeoutMs);
  }

  async #run(timeoutMs: number): Promise<boolean> {
    const timer = setTimeout(
      () => this.#cut(`drain timed out after ${timeoutMs / 1000} s (--exit-timeout-secs)`),
      // A timer past 2^31-1 ms would fire at once (node clamps it to 1 ms): such a bound is none.
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
    try {
      // A failing step must not end the sequence early: the caller exits the process next, which
      // is only safe once the runs have returned. It cuts the drain short instead.
      const drained = await this.#drain().catch((e: unknown) => {
        this.#cut(`the drain failed (${e instanceof Error ? e.message : String(e)})`);
        return false;
      });
      if (!drained) await this.#stopNow();
      await this.#release();
      return drained;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The drain: not ready at once; the listeners accept for the delay; then they close, every
   * WebSocket closes (1001) once it is answered, every gRPC call finishes, and no HTTP request is
   * open. Returns false as soon as the drain is cut short, leaving the rest to #stopNow.
   */
  async #drain(): Promise<boolean> {
    const p = this.#parts;
    const delaySecs = p.drainDelayMs / 1000;
    p.logger.info(
      { drainDelaySecs: delaySecs },
      'drain started: not ready; ' +
        (p.drainDelayMs > 0
          ? `accepting new connections for ${delaySecs} s more (--drain-delay-secs)`
          : 'refusing new connections'),
    );
    p.dataPlane.beginDrain();
    p.models.stopPolling();
    p.http.beginDrain();
    if (p.drainDelayMs > 0) {
      if (!(await this.#unlessCut(delay(p.drainDelayMs)))) return false;
    }
    if (!(await this.#unlessCut(this.#stopAccepting()))) return false;
    // Said once the listeners are closed, so that whoever reads it can rely on it.
    if (p.drainDelayMs > 0) p.logger.info('drain delay over: refusing new connections');
    if (!(await this.#unlessCut(p.http.whenIdle()))) return false;
    // No HTTP request is open, and none can begin before the next I/O callback: close the HTTP
    // connections now, before the models unload. A keep-alive connection idle through the drain
    // (a balancer's pooled one) left open until #release could still deliver a request after the
    // unload, answered 503 "no available versions" (measured behind nginx: 2 in 14,000 requests).
    // Closed unanswered, the request was never read, and a balancer may send it elsewhere.
    await p.http.close();
    // Every network request is answered by now; only in-process ones (the embedded API) can still
    // be queued. stop() lets them finish and refuses more.
    if (!(await this.#unlessCut(Promise.all(p.schedulers().map((s) => s.stop()))))) return false;
    p.logger.info('drain finished: every in-flight request completed');
    return true;
  }

  /**
   * Cut short: every queued request is answered SHUTTING_DOWN at once (503, an error frame, gRPC
   * UNAVAILABLE), and the requests whose runs are inside ONNX Runtime are answered when their run
   * returns (or dropped, if their client went away), which this waits for.
   */
  async #stopNow(): Promise<void> {
    const p = this.#parts;
    const closed = this.#stopAccepting();
    const schedulers = p.schedulers();
    const inFlight = (): number => schedulers.reduce((n, s) => n + s.inflightCount(), 0);
    const before = inFlight();
    const stopped = Promise.all(schedulers.map((s) => s.stopNow()));
    const running = inFlight();
    p.logger.warn(
      { reason: this.#cutReason, answeredNow: before - running, running },
      `${this.#cutReason ?? 'drain cut short'}: ${before - running} queued request(s) answered ` +
        `"shutting down"; waiting for ${running} request(s) whose runs are inside ONNX Runtime`,
    );
    const t0 = performance.now();
    await stopped;
    const waitedMs = Math.round(performance.now() - t0);
    p.logger.warn({ waitedMs }, `the runs inside ONNX Runtime returned after ${waitedMs} ms`);
    // Their answers are being written now (a reply of a few MB takes more than one socket write),
    // and each WebSocket sends its 1001 behind them: a short, bounded wait for that before the
    // sockets are closed under them. A client that does not read is reset when it ends.
    await Promise.race([Promise.all([closed, p.http.whenIdle()]), delay(FLUSH_GRACE_MS)]);
  }

  /** Stops the workers (each pool waits for its runs first) and closes every socket. */
  async #release(): Promise<void> {
    const p = this.#parts;
    try {
      await p.models.close();
    } catch (e) {
      p.logger.error(
        { err: e instanceof Error ? e.message : String(e) },
        'unloading the models failed',
      );
    }
    await p.http.close();
    p.grpc?.close();
    await p.metrics?.close();
  }

  /** Closes the listeners; resolves once every WebSocket is closed and every gRPC call is done. */
  async #stopAccepting(): Promise<void> {
    const p = this.#parts;
    await p.http.stopAccepting();
    await Promise.all([p.websocket?.shutdown(), p.grpc?.stopAccepting()]);
  }

  #cut(reason: string): void {
    if (this.#cutReason !== undefined) return;
    this.#cutReason = reason;
    const waiters = this.#wakeOnCut;
    this.#wakeOnCut = [];
    for (const wake of waiters) wake();
  }

  /** Waits for `step`; false if the drain is (or gets) cut short first. */
  async #unlessCut(step: Promise<unknown>): Promise<boolean> {
    if (this.#cutReason !== undefined) return false;
    const cut = new Promise<false>((resolve) => this.#wakeOnCut.push(() => resolve(false)));
    const outcome = await Promise.race([step.then(() => true as const), cut]);
    return outcome && this.#cutReason === undefined;
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a cut-short shutdown waits for answers already being written (see #stopNow). */
const FLUSH_GRACE_MS = 2000;

/** A timer that does not keep an embedding application's process alive on its own. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
