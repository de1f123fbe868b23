// The per-stage timeline of one request (--trace-stages): where the microseconds between the socket
// and the worker and back go. A request that is traced carries a `StageTrace` from the front end to
// the scheduler and back; each stage stamps the moment it ends, on one clock for every thread
// (process.hrtime is CLOCK_MONOTONIC, shared by the worker threads of a process), and the worker's
// own stamps come back in the run's timing (RunStamps in execution/messages.ts). When tracing is
// off no request carries a trace: every stamp site is one `trace?.` check, nothing is allocated.

import type { RequestSpan } from './request-span.js';

/** The stages in the order a request passes them; each is stamped when it ends. */
export const STAGES = [
  /** The body is in and the route has the call (the clock's zero). */
  'receive',
  /** decodeInferBody: JSON or binary envelope into a DecodedRequest. */
  'parse',
  /** validateRequest against the model's config. */
  'validate',
  /** The scheduler shell queued it. */
  'enqueue',
  /** The shell took it off the queue for a run (planning, plus any queue delay). */
  'dispatch',
  /** The run's inputs are in shared memory and the task is handed to the worker. */
  'post',
  /** The worker's task handler has started (thread wake-up, message delivery). */
  'worker-start',
  /** ORT input tensors built (worker). */
  'run-start',
  /** session.run returned (worker). */
  'run-end',
  /** Outputs copied into shared memory; the handler returns (worker). */
  'worker-end',
  /** The main thread has the worker's reply (message delivery, event-loop wake-up). */
  'resume',
  /** The shell split the outputs and answered the request. */
  'settle',
  /** The data plane built the response (and counted the statistics). */
  'respond',
  /** The response is encoded into bytes. */
  'encode',
  /** The last byte is handed to the socket. */
  'send',
] as const;

export type Stage = (typeof STAGES)[number];

const INDEX: Readonly<Record<Stage, number>> = Object.fromEntries(
  STAGES.map((s, i) => [s, i]),
) as Record<Stage, number>;

/** Nanoseconds on the process-wide monotonic clock (comparable across worker threads). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/** The stamps of one traced request, ns on `nowNs`'s clock; NaN where a stage was not reached. */
export class StageTrace {
  readonly at = new Float64Array(STAGES.length).fill(Number.NaN);

  constructor(receivedNs: number) {
    this.at[0] = receivedNs;
  }

  /**
   * Set when the request is sampled for OpenTelemetry export (request-tracer.ts): its span, which
   * ends with these stamps as events and is the parent of the ensemble steps and BLS calls it makes.
   */
  span: RequestSpan | undefined;

  mark(stage: Stage, ns: number = nowNs()): void {
    this.at[INDEX[stage]] = ns;
  }

  /** The stamp of `stage`; NaN when it was not reached. */
  get(stage: Stage): number {
    return this.at[INDEX[stage]] ?? Number.NaN;
  }
}
