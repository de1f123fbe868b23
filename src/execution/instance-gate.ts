// What an instance pool asks before an instance starts a run, when the server has a rate limiter
// (Triton's --rate-limit=execution_count, scheduler/rate-limit/). The pool holds no gate when the
// limiter is off, so that path is the pool's own: no call, no await, no allocation per run.
//
// Ownership: between `admit` settling and `release`, the instance holds the resources its
// instance group's `rate_limiter` asks for; the pool calls `release` exactly once per admitted
// run, when the run has returned (answered or failed).

export interface InstanceGate {
  /**
   * Instance `name` (a pool instance name, `mlp_0` or `mlp_0_1`) wants to run: undefined when it
   * holds its resources at once, else a promise that resolves when the limiter gives them to it.
   */
  admit(name: string): Promise<void> | undefined;
  /** The run of instance `name` returned: its resources go back and waiting instances are woken. */
  release(name: string): void;
  /**
   * Which of several free instances of the model the limiter would pick first (lower first):
   * Triton keeps a model's free instances ordered by their priority-scaled execution counts.
   */
  rank(name: string): number;
}
