// The OpenTelemetry span of one traced request, as Triton's OpenTelemetry mode shapes it: a span
// named after the model, with REQUEST_START, QUEUE_START and REQUEST_END events, and a child span
// `compute` with COMPUTE_START, COMPUTE_INPUT_END, COMPUTE_OUTPUT_START and COMPUTE_END. The moments
// are the request's stage stamps (stage-trace.ts: the same stamps --trace-stages takes, the worker's
// among them), converted to wall-clock time only here, once the request is answered. Ensemble steps
// and BLS calls start their spans under this one (`context`).

import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type HrTime,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { StageTrace, Stage } from './stage-trace.js';

/** process.hrtime (ns) to the epoch: taken once, as OpenTelemetry wants wall-clock times. */
const EPOCH_OFFSET_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

export function toHrTime(ns: number): HrTime {
  const t = BigInt(Math.round(ns)) + EPOCH_OFFSET_NS;
  return [Number(t / 1_000_000_000n), Number(t % 1_000_000_000n)];
}

/** The compute events: Triton's name and the stage stamp it is read from, in order. */
const COMPUTE_EVENTS: readonly (readonly [string, Stage, Stage?])[] = [
  ['COMPUTE_START', 'dispatch'],
  ['COMPUTE_INPUT_END', 'run-start'],
  ['COMPUTE_OUTPUT_START', 'run-end'],
  // The worker's end; a run without worker stamps ends when its reply arrives.
  ['COMPUTE_END', 'worker-end', 'resume'],
];

export class RequestSpan {
  /** The context child spans (ensemble steps, BLS calls) start in. */
  readonly context: Context;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    parent: Context,
  ) {
    this.context = trace.setSpan(parent, span);
  }

  /** The tenant the request was admitted for (--tenant-header): the attribute infernode.tenant. */
  setTenant(name: string): void {
    this.span.setAttribute('infernode.tenant', name);
  }

  /** Ends the span at `endNs` with the events `stamps` reached; `error` marks it failed. */
  end(stamps: StageTrace, endNs: number, id: string | undefined, error?: Error): void {
    const span = this.span;
    if (id !== undefined) span.setAttribute('triton.request_id', id);
    span.addEvent('REQUEST_START', toHrTime(stamps.get('receive')));
    const queued = stamps.get('enqueue');
    if (!Number.isNaN(queued)) span.addEvent('QUEUE_START', toHrTime(queued));
    const computeStart = stamps.get('dispatch');
    if (!Number.isNaN(computeStart)) {
      const compute = this.tracer.startSpan(
        'compute',
        { kind: SpanKind.INTERNAL, startTime: toHrTime(computeStart) },
        this.context,
      );
      let last = computeStart;
      for (const [name, stage, fallback] of COMPUTE_EVENTS) {
        let at = stamps.get(stage);
        if (Number.isNaN(at) && fallback !== undefined) at = stamps.get(fallback);
        if (Number.isNaN(at)) continue;
        compute.addEvent(name, toHrTime(at));
        last = at;
      }
      compute.end(toHrTime(last));
    }
    span.addEvent('REQUEST_END', toHrTime(endNs));
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end(toHrTime(endNs));
  }
}
