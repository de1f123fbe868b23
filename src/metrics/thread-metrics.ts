// The main thread's record of every live thread's readings (thread-sampler.ts), and the timer that
// takes them every --metrics-interval-ms. One series per live thread, label `thread`: `main`,
// `frontend-<n>` (front-end threads, which post their own readings), `worker-<model>-<version>-
// <instance>` (model-instance workers, read from their pool). A thread's series goes when the thread
// does (a front-end thread exits, a model version unloads), so the label count is the thread count.
// The host's CPU and memory (host-sample.ts) are read on the same timer.

import { HostSampler, type HostReading } from './host-sample.js';
import { LoopSampler, type ThreadReading } from './thread-sampler.js';

/** Readings for a group of threads, taken at each interval (a model version's instance pool). */
export type ThreadSource = () => Iterable<readonly [thread: string, reading: ThreadReading]>;

export class ThreadMetrics {
  /** Readings threads posted themselves (the main thread, front-end threads), by label. */
  readonly #posted = new Map<string, ThreadReading>();
  /** Each source with what it gave at the last interval. */
  readonly #sources = new Map<ThreadSource, ReadonlyMap<string, ThreadReading>>();
  #intervalMs: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #main: LoopSampler | undefined;
  #host: HostSampler | undefined;
  /**
   * Int32 [0]: bumped at every interval. Workers read it after each run to know a reading is due
   * (execution/worker-readings.ts): one load from shared memory instead of a clock read per run.
   */
  readonly tick = new SharedArrayBuffer(4);

  /**
   * --metrics-interval-ms: how often workers and front-end threads send their readings; undefined
   * (they send none) on a server without metrics.
   */
  get intervalMs(): number | undefined {
    return this.#intervalMs;
  }

  /** Set before any thread starts (server.ts), so each is started with it. */
  configure(intervalMs: number): void {
    this.#intervalMs = intervalMs;
  }

  /**
   * Starts sampling the main thread and the sources every interval (and the host, with `host`:
   * --allow-cpu-metrics). The timer does not keep the process alive.
   */
  start(host: boolean): void {
    if (this.#timer !== undefined || this.#intervalMs === undefined) return;
    this.#main = new LoopSampler();
    if (host) this.#host = new HostSampler();
    this.#timer = setInterval(() => this.sample(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#main?.stop();
  }

  /** The host's CPU and memory at the last interval; undefined without --allow-cpu-metrics. */
  get host(): HostReading | undefined {
    return this.#host?.latest;
  }

  /** A thread's own readings (a front-end thread's message). */
  post(thread: string, reading: ThreadReading): void {
    this.#posted.set(thread, reading);
  }

  /** The thread is gone: its series with it. */
  forget(thread: string): void {
    this.#posted.delete(thread);
  }

  /** Reads `source` at every interval until the returned function removes it (and its series). */
  addSource(source: ThreadSource): () => void {
    this.#sources.set(source, new Map(source()));
    return () => {
      this.#sources.delete(source);
    };
  }

  /** Takes every reading now (the timer's tick; tests call it to avoid waiting). */
  sample(): void {
    Atomics.add(new Int32Array(this.tick), 0, 1);
    if (this.#main !== undefined) this.#posted.set('main', this.#main.sample());
    this.#host?.sample();
    for (const source of this.#sources.keys()) this.#sources.set(source, new Map(source()));
  }

  /** Every live thread's latest reading, by label. */
  *readings(): Iterable<readonly [string, ThreadReading]> {
    yield* this.#posted;
    for (const taken of this.#sources.values()) yield* taken;
  }
}
