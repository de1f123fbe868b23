// Test doubles for the scheduler's unit tests: frozen configs from pbtxt text, validated requests
// built from typed arrays (counting how often each input is copied), an execution target that records each run and answers it only
// when the test says so, computing OUT = 2 * IN from the batch's shared memory, a recorder of
// how and in which order each request was answered, and a request queue on a manual clock with
// the dynamic_batching / queue policy settings it is built from.

import { autocompleteCoreFields } from '../../../src/config/autocomplete.js';
import type {
  DynamicBatchingConfig,
  ModelConfig,
  QueuePolicyConfig,
} from '../../../src/config/model-config.js';
import { normalizeModelConfig } from '../../../src/config/normalize.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { validateModelConfig } from '../../../src/config/validate.js';
import type { InferenceServerError } from '../../../src/errors.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';
import type { RunRequest, RunResponse } from '../../../src/execution/messages.js';
import { MetricsCatalog } from '../../../src/metrics/metrics-catalog.js';
import { ModelReporter } from '../../../src/metrics/model-reporter.js';
import type { ExecutionTarget } from '../../../src/scheduler/execution-target.js';
import type { Scheduler, SchedulerResult } from '../../../src/scheduler/scheduler.js';
import {
  brandValidated,
  type ValidatedInput,
  type ValidatedRequest,
} from '../../../src/scheduler/validated-request.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import { typedView } from '../../../src/memory/views.js';
import { backendConfigRules } from '../../../src/repository/backends/registry.js';
import { priorityPlan } from '../../../src/scheduler/queue-policy.js';
import { RequestQueue, type QueueEntry } from '../../../src/scheduler/request-queue.js';
import type { TenantTag } from '../../../src/scheduler/tenant-tag.js';
import { ManualClock } from './manual-clock.js';

/** A frozen config from config.pbtxt text, through the real config pipeline. */
export function modelConfig(text: string): ModelConfig {
  const raw = autocompleteCoreFields(parseModelConfig(text, 'config.pbtxt'), {
    modelName: 'm',
    versionHasOnnxModel: true,
  });
  const { config: c } = normalizeModelConfig(raw, {
    backends: backendConfigRules(),
    availableGpus: [],
  });
  validateModelConfig(c, { backends: backendConfigRules(), modelName: 'm', availableGpus: [] });
  return c;
}

export interface InputSpec {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

export interface CountingInput extends ValidatedInput {
  /** How many times `write` copied this input. */
  writes: number;
}

export function input(spec: InputSpec): CountingInput {
  const i: CountingInput = {
    name: spec.name,
    datatype: spec.datatype,
    shape: spec.shape,
    requestShape: spec.shape,
    byteLength: spec.bytes.byteLength,
    writes: 0,
    write(target: Uint8Array): void {
      if (target.byteLength !== spec.bytes.byteLength) {
        throw new Error(
          `write target of ${target.byteLength} bytes, expected ${spec.bytes.byteLength}`,
        );
      }
      i.writes += 1;
      target.set(spec.bytes);
    },
  };
  return i;
}

export function fp32(name: string, rows: number, values: readonly number[]): CountingInput {
  const data = Float32Array.from(values);
  return input({
    name,
    datatype: 'FP32',
    shape: [rows, data.length / rows],
    bytes: new Uint8Array(data.buffer),
  });
}

export interface RequestOptions {
  readonly rows?: number;
  /** Row-major FP32 values of IN; default: rows x 2 values derived from `seed`. */
  readonly values?: readonly number[];
  readonly seed?: number;
  readonly priority?: number;
  readonly timeoutUs?: number;
  readonly signal?: AbortSignal;
  readonly inputs?: readonly ValidatedInput[];
  readonly outputs?: readonly string[];
  readonly tenant?: TenantTag;
}

/** A request of `rows` rows of IN (FP32, 2 per row) asking for OUT. */
export function request(o: RequestOptions = {}): ValidatedRequest {
  const rows = o.rows ?? 1;
  const seed = o.seed ?? 1;
  const values = o.values ?? Array.from({ length: rows * 2 }, (_, i) => seed * 100 + i);
  return brandValidated({
    model: 'm',
    version: 1,
    batchSize: rows,
    inputs: o.inputs ?? [fp32('IN', rows, values)],
    outputs: (o.outputs ?? ['OUT']).map((name) => ({ name, binary: false })),
    priority: o.priority ?? 0,
    timeoutUs: o.timeoutUs ?? 0,
    signal: o.signal ?? new AbortController().signal,
    arrivalNs: 0,
    ...(o.tenant !== undefined && { tenant: o.tenant }),
  });
}

/** The FP32 values of a result output. */
export function floats(data: Uint8Array): number[] {
  return [...new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4)];
}

interface PendingRun {
  readonly request: RunRequest;
  readonly resolve: (r: RunResponse) => void;
}

export class ManualTarget implements ExecutionTarget {
  readonly runs: PendingRun[] = [];
  /** Rows of every run, in dispatch order. */
  readonly batches: number[] = [];
  private done = 0;

  constructor(readonly capacity: number) {}

  run(request: RunRequest): Promise<RunResponse> {
    this.batches.push(request.inputs[0]?.shape[0] ?? 0);
    return new Promise((resolve) => this.runs.push({ request, resolve }));
  }

  /** Runs not yet answered. */
  get running(): number {
    return this.runs.length - this.done;
  }

  /** Answers run `index` (dispatch order) with OUT = 2 * IN in a fresh output block. */
  complete(index: number): void {
    const r = this.runs[index];
    if (r === undefined) throw new Error(`no run ${index}`);
    const src = r.request.inputs[0];
    if (src === undefined) throw new Error('run without inputs');
    const inView = typedView(src) as Float32Array;
    const block = TensorBlock.allocate([{ name: 'OUT', datatype: 'FP32', shape: src.shape }]);
    const out = typedView(block.descriptor(0)) as Float32Array;
    for (let i = 0; i < inView.length; i++) out[i] = (inView[i] as number) * 2;
    this.done += 1;
    r.resolve({
      ok: true,
      outputs: block.descriptors,
      timing: { inputNs: 10, inferNs: 100, outputNs: 20 },
    });
  }

  fail(index: number, message: string): void {
    const r = this.runs[index];
    if (r === undefined) throw new Error(`no run ${index}`);
    this.done += 1;
    r.resolve({ ok: false, error: { code: 'INFER_FAILED', message } });
  }
}

export function reporter(): ModelReporter {
  return new ModelReporter(new MetricsCatalog(), 'm', 1, () => 0);
}

/** Lets settled promises run their callbacks (no wall-clock wait). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How one request was answered, once it has been. */
export interface Outcome {
  result?: SchedulerResult;
  error?: InferenceServerError;
}

/** Enqueues requests on `scheduler`, recording each outcome and the order they were answered in. */
export function recorder(scheduler: Scheduler) {
  const outcomes: Outcome[] = [];
  const order: number[] = [];
  const send = (req: ValidatedRequest): Outcome => {
    const out: Outcome = {};
    const index = outcomes.length;
    outcomes.push(out);
    scheduler.enqueue(req).then(
      (r) => {
        out.result = r;
        order.push(index);
      },
      (e: InferenceServerError) => {
        out.error = e;
        order.push(index);
      },
    );
    return out;
  };
  return { send, outcomes, order };
}

export const errorCode = (o: Outcome) => o.error?.code;

/** A queue policy: REJECT, no timeout, no override, no size limit, unless `o` says otherwise. */
export const queuePolicy = (o: Partial<QueuePolicyConfig> = {}): QueuePolicyConfig => ({
  timeout_action: 'REJECT',
  default_timeout_microseconds: 0,
  allow_timeout_override: false,
  max_queue_size: 0,
  ...o,
});

/** dynamic_batching with every field at its default, unless `o` says otherwise. */
export const dynamicBatching = (o: Partial<DynamicBatchingConfig> = {}): DynamicBatchingConfig => ({
  preferred_batch_size: [],
  max_queue_delay_microseconds: 0,
  preserve_ordering: false,
  priority_levels: 0,
  default_priority_level: 0,
  priority_queue_policy: {},
  ...o,
});

/**
 * A request queue of names on a manual clock, built from `config`, recording which names timed out
 * and which were delayed, with helpers to push and serve many at once.
 */
export function queueSetup(config: DynamicBatchingConfig = dynamicBatching()) {
  const clock = new ManualClock();
  const timedOut: string[] = [];
  const delayed: string[] = [];
  const queue = new RequestQueue<string>(priorityPlan(config), clock, {
    timedOut: (e) => timedOut.push(e.value),
    delayed: (e) => delayed.push(e.value),
  });
  const names = () => queue.ordered().map((e) => e.value);
  /** Pushes `n` requests named `<prefix><i>` for `t`. */
  const flood = (prefix: string, n: number, t?: TenantTag, priority = 0, rows = 1) => {
    const out: QueueEntry<string>[] = [];
    for (let i = 0; i < n; i++) out.push(queue.push(`${prefix}${i}`, priority, 0, t, rows));
    return out;
  };
  /** Dispatches the head of the queue `n` times, one request at a time; their names. */
  const serve = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n && queue.size > 0; i++) {
      const head = queue.ordered()[0] as QueueEntry<string>;
      queue.take([head]);
      out.push(head.value);
    }
    return out;
  };
  return { clock, queue, timedOut, delayed, names, flood, serve };
}

/**
 * In a service order of names, how many of `prefix`'s requests come before each of `other`'s,
 * counted since the previous one of `other`'s.
 */
export function gaps(order: readonly string[], prefix: string, other: string): number[] {
  const out: number[] = [];
  let run = 0;
  for (const n of order) {
    if (n.startsWith(other)) {
      out.push(run);
      run = 0;
    } else if (n.startsWith(prefix)) run += 1;
  }
  return out;
}
