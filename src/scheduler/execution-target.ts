// What a scheduler dispatches to: the model's instances (an `InstancePool` in production). A
// scheduler calls `run` only while fewer than `capacity` runs are in flight, so queueing, priority
// and cancellation stay in the scheduler, where a queued request can still be withdrawn. A run, once
// started, always finishes (terminating a worker inside session.run aborts the process).

import type { RunRequest, RunResponse } from '../execution/messages.js';
import type { RunScope } from '../execution/run-scope.js';

export interface ExecutionTarget {
  /** Instances that can execute at once. */
  readonly capacity: number;
  /**
   * True when, once `run` has resolved, nothing the target ran still reads or views the run's input
   * memory (ORT workers: session.run has returned and outputs are copies). The dynamic batcher then
   * reuses the input block (memory/block-pool.ts). A JavaScript model may keep views of its inputs
   * past its execute, so its pool leaves this unset.
   */
  readonly inputsFreeAfterRun?: boolean;
  /**
   * `scope`: the members' signals and, for a decoupled model, their response sinks. `transfer`:
   * ArrayBuffers the request's descriptors point into that move to the worker with it (detached
   * here from then on); see scheduler/moved-inputs.ts.
   */
  run(
    request: RunRequest,
    scope?: RunScope,
    transfer?: readonly ArrayBuffer[],
  ): Promise<RunResponse>;
}
