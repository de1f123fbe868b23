// The front-end threads beside the main thread's own front end, as one FrontEnd: N-1 worker
// threads (--http-thread-count=N), each with its own adapter listening on the main thread's port
// with SO_REUSEPORT, so the kernel spreads new connections over all N listeners. Every step of the
// shutdown (drain, stop accepting, WebSocket 1001, close) is done on every thread; a thread that
// dies is replaced after the instance workers' back-off and counted.
//
// Why the main thread keeps a listener: with one thread (the default on small hosts) nothing
// changes and no request pays a hop between threads; with more, the main thread takes 1/N of the
// connections and the queues, batches and runs of all of them.

import { Worker } from 'node:worker_threads';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { restartDelayMs, RESTART_STABLE_MS } from '../execution/restart-backoff.js';
import type { FrontEnd, HttpHandler } from '../http/front-end.js';
import type { Logger } from '../logger.js';
import type { ThreadMetrics } from '../metrics/thread-metrics.js';
import { PlaneHost } from './plane-host.js';
import type { LogControl } from '../logging/log-control.js';
import type { LogSettings } from '../logging/log-settings.js';
import type { ControlOp, FrontEndThreadConfig, ToMain, ToThread } from './thread-messages.js';

const WORKER_URL = new URL('./front-end-worker.js', import.meta.url);

export interface FrontEndThreadsOptions {
  /** Threads to start besides the main thread (--http-thread-count minus one). */
  readonly extra: number;
  /** Every thread's config but its index and log settings; `port` is the one main bound. */
  readonly config: Omit<FrontEndThreadConfig, 'index' | 'logSettings'>;
  /**
   * The main thread's log settings: each thread starts with those in force and is sent every
   * change, so its records follow them; its logging-extension calls are answered from here.
   */
  readonly logging: LogControl;
  readonly plane: DataPlane;
  readonly logger: Logger;
  /** Called for each thread started to replace one that died. */
  readonly onRestart?: () => void;
  /** Called with the number of threads serving, the main one included, when it changes. */
  readonly onThreadCount?: (threads: number) => void;
  /** Returns the callback counting thread `index`'s inference requests (called once per thread). */
  readonly requestCounter?: (index: number) => () => void;
  /** Where each thread's readings go, as `frontend-<index>` (removed when the thread exits). */
  readonly threadMetrics?: ThreadMetrics;
}

/** One worker thread and the main thread's side of it. */
class FrontEndThread {
  readonly #worker: Worker;
  readonly #host: PlaneHost;
  readonly #controls = new Map<number, () => void>();
  #seq = 0;
  #exited = false;
  readonly startedAt = performance.now();
  /** Resolves with the bound port once listening; rejects if the thread ends first. */
  readonly listening: Promise<number>;
  /** Resolves with the exit code when the thread ends. */
  readonly exited: Promise<number>;

  constructor(
    config: FrontEndThreadConfig,
    plane: DataPlane,
    logger: Logger,
    onInfer: (() => void) | undefined,
    threadMetrics: ThreadMetrics | undefined,
    logging: LogControl,
  ) {
    const label = `frontend-${config.index}`;
    this.#worker = new Worker(WORKER_URL, { workerData: config });
    const post = (message: ToThread, transfer?: ArrayBuffer[]): void => {
      if (!this.#exited) this.#worker.postMessage(message, transfer);
    };
    this.#host = new PlaneHost(plane, post, onInfer, {
      logSettings: (update) => (update === undefined ? logging.settings : logging.update(update)),
    });
    let listened: (port: number) => void = () => undefined;
    let failed: (e: Error) => void = () => undefined;
    this.listening = new Promise<number>((resolve, reject) => {
      listened = resolve;
      failed = reject;
    });
    this.#worker.on('message', (message: ToMain) => {
      switch (message.kind) {
        case 'listening':
          listened(message.port);
          return;
        case 'log':
          logger[message.level](message.fields, message.message);
          return;
        case 'done':
          this.#controls.get(message.seq)?.();
          this.#controls.delete(message.seq);
          return;
        case 'readings':
          if (!this.#exited) threadMetrics?.post(label, message.reading);
          return;
        default:
          this.#host.receive(message);
      }
    });
    this.#worker.on('error', (e) =>
      logger.error({ thread: config.index, err: e.message }, 'front-end thread error'),
    );
    this.exited = new Promise<number>((resolve) => {
      this.#worker.once('exit', (code) => {
        this.#exited = true;
        threadMetrics?.forget(label);
        this.#host.abandon();
        for (const done of this.#controls.values()) done();
        this.#controls.clear();
        failed(
          new Error(`front-end thread ${config.index} exited (code ${code}) before listening`),
        );
        resolve(code);
      });
    });
  }

  /** Sends the thread the log settings now in force. */
  logSettings(settings: LogSettings): void {
    if (!this.#exited)
      this.#worker.postMessage({ kind: 'logSettings', settings } satisfies ToThread);
  }

  /** Asks the thread to do `op`; resolves when it is done (at once if the thread is gone). */
  control(op: ControlOp): Promise<void> {
    if (this.#exited) return Promise.resolve();
    const seq = ++this.#seq;
    return new Promise<void>((resolve) => {
      this.#controls.set(seq, resolve);
      this.#worker.postMessage({ kind: 'control', seq, op } satisfies ToThread);
    });
  }
}

export class FrontEndThreads implements FrontEnd {
  readonly kind: string;
  readonly #main: FrontEnd;
  readonly #options: FrontEndThreadsOptions;
  readonly #threads: (FrontEndThread | undefined)[];
  /** Consecutive early deaths per slot, for the back-off. */
  readonly #failures: number[];
  /** Each slot's request counter, kept across replacements. */
  readonly #counters: ((() => void) | undefined)[] = [];
  #draining = false;
  #stopped = false;
  /** Set once every first thread listens: a thread that ends before that fails the start. */
  #started = false;
  /** Stops sending the threads log-settings changes (at close). */
  readonly #unwatchLogging: () => void;

  private constructor(main: FrontEnd, options: FrontEndThreadsOptions) {
    this.kind = main.kind;
    this.#main = main;
    this.#options = options;
    this.#threads = new Array<FrontEndThread | undefined>(options.extra).fill(undefined);
    this.#failures = new Array<number>(options.extra).fill(0);
    // One message per thread per change: a thread drops the records the settings turn off before
    // posting them, instead of cloning each to main only for main to drop it.
    this.#unwatchLogging = options.logging.onChange((settings) => {
      for (const t of this.#live()) t.logSettings(settings);
    });
  }

  /**
   * Starts the threads beside `main`, which is already listening on `config.port`; resolves once
   * every thread listens. A thread that cannot listen fails the start (and stops the others).
   */
  static async start(main: FrontEnd, options: FrontEndThreadsOptions): Promise<FrontEndThreads> {
    const threads = new FrontEndThreads(main, options);
    const started = Array.from({ length: options.extra }, (_, k) => threads.#spawn(k));
    try {
      await Promise.all(started.map((t) => t.listening));
    } catch (e) {
      await threads.close();
      throw e;
    }
    threads.#started = true;
    threads.#reportCount();
    return threads;
  }

  /** Threads serving now, the main one included. */
  get threadCount(): number {
    return 1 + this.#threads.filter((t) => t !== undefined).length;
  }

  listen(_handler: HttpHandler): Promise<number> {
    return Promise.reject(new Error('the front-end threads start with FrontEndThreads.start'));
  }

  beginDrain(): void {
    this.#draining = true;
    this.#main.beginDrain();
    for (const t of this.#live()) void t.control('beginDrain');
  }

  async whenIdle(): Promise<void> {
    await Promise.all([this.#main.whenIdle(), ...this.#live().map((t) => t.control('whenIdle'))]);
  }

  async stopAccepting(): Promise<void> {
    this.#stopped = true;
    await Promise.all([
      this.#main.stopAccepting(),
      ...this.#live().map((t) => t.control('stopAccepting')),
    ]);
  }

  /**
   * Makes thread `index` (1..N-1) fail as a bug would: an exception nothing catches. It closes its
   * sockets and exits, and is replaced. For tests of that path.
   */
  failThread(index: number): Promise<void> {
    return this.#threads[index - 1]?.control('fail') ?? Promise.resolve();
  }

  /** Each thread's WebSocket sessions answer what they hold and close with 1001. */
  async websocketShutdown(): Promise<void> {
    await Promise.all(this.#live().map((t) => t.control('websocketShutdown')));
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.#unwatchLogging();
    const threads = this.#live();
    await Promise.all([this.#main.close(), ...threads.map((t) => t.control('close'))]);
    await Promise.all(threads.map((t) => t.exited));
  }

  #live(): FrontEndThread[] {
    return this.#threads.filter((t): t is FrontEndThread => t !== undefined);
  }

  #spawn(slot: number): FrontEndThread {
    const { config, plane, logger, logging } = this.#options;
    const index = slot + 1;
    const onInfer = (this.#counters[slot] ??= this.#options.requestCounter?.(index));
    const thread = new FrontEndThread(
      { ...config, index, logSettings: logging.settings },
      plane,
      logger,
      onInfer,
      this.#options.threadMetrics,
      logging,
    );
    this.#threads[slot] = thread;
    void thread.exited.then((code) => this.#lost(slot, thread, code));
    return thread;
  }

  /** A thread ended: expected once the front end closes; otherwise it is replaced. */
  #lost(slot: number, thread: FrontEndThread, code: number): void {
    if (this.#threads[slot] !== thread) return;
    this.#threads[slot] = undefined;
    this.#reportCount();
    if (this.#stopped || !this.#started) return;
    const stable = performance.now() - thread.startedAt >= RESTART_STABLE_MS;
    this.#failures[slot] = stable ? 1 : (this.#failures[slot] ?? 0) + 1;
    const waitMs = restartDelayMs(this.#failures[slot] ?? 1);
    this.#options.logger.error(
      { thread: slot + 1, exitCode: code, restartInMs: waitMs },
      `front-end thread ${slot + 1} exited (code ${code}); starting a replacement` +
        (waitMs > 0 ? ` in ${(waitMs / 1000).toFixed(2)} s` : ''),
    );
    setTimeout(() => {
      if (this.#stopped || this.#threads[slot] !== undefined) return;
      const next = this.#spawn(slot);
      this.#options.onRestart?.();
      next.listening.then(
        () => {
          this.#reportCount();
          if (this.#draining) void next.control('beginDrain');
          this.#options.logger.info({ thread: slot + 1 }, `front-end thread ${slot + 1} replaced`);
        },
        () => undefined, // its exit is handled by #lost
      );
    }, waitMs).unref();
  }

  #reportCount(): void {
    this.#options.onThreadCount?.(this.threadCount);
  }
}
