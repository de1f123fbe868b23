// The seam between the scheduler shell and a strategy. The shell (scheduler-shell.ts) owns each
// request's life: queue policy, client aborts, response order, drain, metrics, the in-flight count.
// A strategy decides only which queued requests run together next, and how one such run executes.

import type { WireError } from '../errors.js';
import type { RunTiming } from '../execution/messages.js';
import type { BatchCandidate, BatchPlan, PlanContext } from './batch-plan.js';
import type { ScheduledOutput } from './scheduler.js';
import type { ValidatedRequest } from './validated-request.js';

/** A queued request as a planner sees it: planning facts fixed when it was queued. */
export interface QueuedRequest extends BatchCandidate {
  readonly request: ValidatedRequest;
}

export type RunOutcome = (
  | {
      readonly ok: true;
      readonly timing: RunTiming;
      /** Per member, in the order given to `execute`: the outputs it asked for, in its order. */
      readonly outputs: readonly (readonly ScheduledOutput[])[];
    }
  | {
      readonly ok: false;
      /** Every member not `refused` is answered with this error. */
      readonly error: WireError;
      /** Set when the model did run (the execution counts in the stats) but the run is unusable. */
      readonly timing?: RunTiming;
    }
) & {
  /**
   * Per member, in the order given to `execute`: set for a member left out of the run (its data
   * failed to copy into the batch), or one the model failed on its own (a JavaScript model's
   * response was an error). It is answered with its own error; its rows do not count as inferred.
   */
  readonly refused?: readonly (WireError | undefined)[];
};

export interface SchedulingStrategy {
  /** Runs that may execute at once: the shell starts one only while fewer are running. */
  readonly capacity: number;
  /** Requests with equal keys may share a run. Called once per request, when it is queued. */
  keyOf(request: ValidatedRequest): string;
  /**
   * Called before a request is queued: a throw refuses it (the error answers the client). A
   * strategy that keeps per-request bookkeeping (the sequence batcher) starts it here.
   */
  admit?(request: ValidatedRequest): void;
  /** An admitted request left the queue without running (withdrawn, timed out, shut down). */
  released?(request: ValidatedRequest): void;
  /**
   * Given once by the shell: call it when something outside a request's life (a timer of the
   * strategy's own, such as the sequence batcher's idle release) may let a queued request run.
   */
  bindWake?(wake: () => void): void;
  /** The shell has drained: cancel the strategy's own timers. */
  dispose?(): void;
  /**
   * The next run, from the queue in service order (priority level, then arrival, or fair order
   * among the tenants of a level: request-queue.ts); pure.
   */
  plan(queue: readonly QueuedRequest[], ctx: PlanContext): BatchPlan;
  /**
   * Executes `members` as one run; it counts against `capacity` until the promise settles. A throw
   * or a rejection answers every member with that error (an InferenceServerError, else INTERNAL).
   */
  execute(members: readonly ValidatedRequest[]): Promise<RunOutcome>;
}
