// One chain of operations per model: each load, unload or poll step on a model runs after the one
// before it has finished, including the work it handed over to finish later (replaced versions
// draining), so two operations on one model never interleave while different models proceed in
// parallel.

export type DeferWork = (p: Promise<void>) => void;

export class OperationChains {
  /** Per key: the tail of its operations; each waits for the one before it. */
  readonly #tails = new Map<string, Promise<void>>();

  /** `onDeferredFailure` hears of work handed over with `defer` that failed (it is only logged). */
  constructor(private readonly onDeferredFailure: (key: string, e: unknown) => void) {}

  /**
   * Runs `op` after every earlier operation on `key` and resolves or rejects with it. `op` may hand
   * over work that finishes after it answers: the next operation on `key` waits for that too.
   */
  run(key: string, op: (defer: DeferWork) => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const deferred: Array<Promise<void>> = [];
    const run = previous.then(() => op((p) => deferred.push(p)));
    const settle = (): Promise<void> =>
      Promise.all(deferred).then(
        () => undefined,
        (e: unknown) => this.onDeferredFailure(key, e),
      );
    const tail = run.then(settle, settle);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }

  /** Resolves when every operation started so far (and its deferred work) has ended. */
  async idle(): Promise<void> {
    await Promise.all([...this.#tails.values()]);
  }
}
