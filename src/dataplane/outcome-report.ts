// How the data plane counts an inference request in its model version's statistics and metrics:
// a success with its stage times, or a failure with Triton's reason (REJECTED, CANCELED, BACKEND,
// OTHER) and the time it took to fail.

import type { ErrorCode } from '../errors.js';
import type { FailureReason, ModelReporter } from '../metrics/model-reporter.js';
import type { SchedulerResult } from '../scheduler/scheduler.js';

/** Counts a request that got its answer: its whole time and its scheduler's stage times. */
export function reportSucceeded(
  reporter: ModelReporter,
  result: SchedulerResult,
  arrivalNs: number,
): void {
  reporter.succeeded({
    totalNs: hrNow() - arrivalNs,
    queueNs: result.queueNs,
    inputNs: result.inputNs,
    inferNs: result.inferNs,
    outputNs: result.outputNs,
  });
}

/** Counts a request that failed, for `reason`, after the time since it arrived. */
export function reportFailed(
  reporter: ModelReporter,
  reason: FailureReason,
  arrivalNs: number,
): void {
  reporter.failed(reason, hrNow() - arrivalNs);
}

/** Triton's failure reason for an error the request was answered with. */
export function failureReason(code: ErrorCode): FailureReason {
  switch (code) {
    case 'QUEUE_FULL':
    case 'QUEUE_TIMEOUT':
    case 'SHUTTING_DOWN':
      return 'REJECTED';
    case 'CANCELLED':
      return 'CANCELED';
    case 'INFER_FAILED':
    case 'WORKER_FAILED':
      return 'BACKEND';
    default:
      return 'OTHER';
  }
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
