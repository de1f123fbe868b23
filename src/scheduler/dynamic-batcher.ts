// The dynamic batching strategy: requests wait in a priority queue under Triton's queue policy,
// and whenever an instance is free the batch planner picks the requests that run together. The
// batch's inputs are merged into one SharedArrayBuffer block, run on one instance, and the outputs
// are handed back to each request as views. Cancellation is cooperative: a request whose client
// went away leaves the queue at once; one already in a running batch has its result dropped.

import { fail, fromWire, InferenceServerError, type WireError } from '../errors.js';
import type { RunResponse } from '../execution/messages.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import { DEFAULT_MAX_BLOCK_BYTES } from '../memory/tensor-block.js';
import { planBatch, type BatchCandidate, type BatchLimits } from './batch-plan.js';
import { batchKey, mergeInputs, splitOutputs } from './batch-tensors.js';
import type { ExecutionTarget } from './execution-target.js';
import type { PriorityPlan } from './queue-policy.js';
import { RequestQueue, type QueueEntry } from './request-queue.js';
import { ResponseOrder } from './response-order.js';
import { SYSTEM_CLOCK, type SchedulerClock, type TimerHandle } from './scheduler-clock.js';
import { DrainLatch } from './drain-latch.js';
import type { Scheduler, SchedulerResult } from './scheduler.js';
import type { ValidatedRequest } from './validated-request.js';

/** The frozen `dynamic_batching` settings, resolved (see create-scheduler.ts). */
export interface BatcherSettings {
  /** 0: the model has no batch dim; requests still queue under the policy but run alone. */
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  readonly maxQueueDelayUs: number;
  readonly preserveOrdering: boolean;
  readonly priorities: PriorityPlan;
}

export interface DynamicBatcherOptions {
  /** Injected so tests control time and timers. */
  readonly clock?: SchedulerClock;
  /** Cap on one batch's input bytes (the server passes --http-max-input-size). */
  readonly maxBlockBytes?: number;
}

/** One accepted request, from enqueue until its promise settles. */
interface Waiter extends BatchCandidate {
  readonly request: ValidatedRequest;
  /** Set once queued: the queue stamps the time, the response order hands out the place. */
  enqueuedNs: number;
  place: number;
  readonly resolve: (r: SchedulerResult) => void;
  readonly reject: (e: InferenceServerError) => void;
  readonly onAbort: () => void;
  entry: QueueEntry<Waiter> | undefined;
}

export class DynamicBatcher implements Scheduler {
  private readonly queue: RequestQueue<Waiter>;
  private readonly order: ResponseOrder;
  private readonly clock: SchedulerClock;
  private readonly limits: BatchLimits;
  private runningBatches = 0;
  private runningRequests = 0;
  private delayTimer: { readonly atNs: number; readonly handle: TimerHandle } | undefined;
  private readonly drain = new DrainLatch();

  constructor(
    private readonly target: ExecutionTarget,
    private readonly reporter: ModelReporter,
    private readonly settings: BatcherSettings,
    options: DynamicBatcherOptions = {},
  ) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.order = new ResponseOrder(settings.preserveOrdering);
    this.limits = {
      maxBatchSize: settings.maxBatchSize,
      preferredBatchSizes: settings.preferredBatchSizes,
      maxQueueDelayNs: settings.maxQueueDelayUs * 1000,
      maxBatchBytes: options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES,
    };
    this.queue = new RequestQueue<Waiter>(settings.priorities, this.clock, {
      timedOut: (e) => {
        this.reporter.dequeued();
        this.answerEarly(e.value, fail('QUEUE_TIMEOUT', 'Request timeout expired'));
      },
      // The head of the queue may have changed: re-plan.
      delayed: () => this.pump(),
    });
  }

  enqueue(request: ValidatedRequest): Promise<SchedulerResult> {
    if (this.drain.draining)
      return Promise.reject(fail('SHUTTING_DOWN', 'the server is shutting down'));
    if (request.signal.aborted) return Promise.reject(cancelled());
    return new Promise<SchedulerResult>((resolve, reject) => {
      let entry: QueueEntry<Waiter>;
      const w: Waiter = {
        request,
        rows: request.batchSize,
        bytes: request.inputs.reduce((a, i) => a + i.byteLength, 0),
        key: this.settings.maxBatchSize > 0 ? batchKey(request.inputs) : '',
        enqueuedNs: 0,
        place: -1,
        resolve,
        reject,
        onAbort: () => this.withdraw(w),
        entry: undefined,
      };
      try {
        entry = this.queue.push(w, request.priority, request.timeoutUs);
      } catch (e) {
        reject(e instanceof InferenceServerError ? e : fail('INTERNAL'));
        return;
      }
      w.enqueuedNs = entry.enqueuedNs;
      w.place = this.order.reserve();
      w.entry = entry;
      this.reporter.enqueued();
      request.signal.addEventListener('abort', w.onAbort, { once: true });
      this.pump();
    });
  }

  inflightCount(): number {
    return this.queue.size + this.runningRequests;
  }

  stop(): Promise<void> {
    const drained = this.drain.begin(this.inflightCount() === 0);
    this.pump(); // nothing waits for the queue delay once draining
    return drained;
  }

  /** The client went away: a queued request leaves at once; a running one finishes, unanswered. */
  private withdraw(w: Waiter): void {
    if (w.entry === undefined || !this.queue.remove(w.entry)) return;
    this.reporter.dequeued();
    this.answerEarly(w, cancelled());
  }

  /** A request leaving the queue without running: answered now, its place in the order freed. */
  private answerEarly(w: Waiter, error: InferenceServerError): void {
    w.request.signal.removeEventListener('abort', w.onAbort);
    this.order.settle(w.place, () => undefined);
    w.reject(error);
    this.pump(); // the head may have changed, and with it the delay to wait for
    this.checkDrained();
  }

  /** Sends batches while an instance is free and the planner says a batch is ready. */
  private pump(): void {
    let waitUntil: number | undefined;
    while (this.runningBatches < this.target.capacity && this.queue.size > 0) {
      const entries = this.queue.ordered();
      const plan = planBatch(
        entries.map((e) => e.value),
        this.limits,
        {
          nowNs: this.clock.nowNs(),
          idleInstances: this.target.capacity - this.runningBatches,
          draining: this.drain.draining,
        },
      );
      if (plan.kind === 'empty') break;
      if (plan.kind === 'wait') {
        waitUntil = plan.untilNs;
        break;
      }
      this.dispatch(plan.take.map((i) => entries[i] as QueueEntry<Waiter>));
    }
    this.armDelay(waitUntil);
  }

  /** One timer for the queue delay, re-armed only when the deadline it waits for changes. */
  private armDelay(atNs: number | undefined): void {
    if (this.delayTimer !== undefined && this.delayTimer.atNs === atNs) return;
    this.delayTimer?.handle.cancel();
    this.delayTimer = undefined;
    if (atNs === undefined) return;
    const handle = this.clock.setTimer(Math.max(0, atNs - this.clock.nowNs()), () => {
      this.delayTimer = undefined;
      this.pump();
    });
    this.delayTimer = { atNs, handle };
  }

  private dispatch(entries: readonly QueueEntry<Waiter>[]): void {
    this.queue.take(entries);
    const members = entries.map((e) => e.value);
    for (let i = 0; i < members.length; i++) this.reporter.dequeued();
    this.runningBatches += 1;
    this.runningRequests += members.length;
    const dispatchNs = this.clock.nowNs();
    let run: Promise<RunResponse>;
    try {
      const block = mergeInputs(
        members.map((w) => ({ rows: w.rows, inputs: w.request.inputs })),
        {
          batched: this.settings.maxBatchSize > 0,
          // Padding: each slot starts on a 64-byte boundary.
          maxBytes: this.limits.maxBatchBytes + 64 * (members[0]?.request.inputs.length ?? 0),
        },
      );
      run = this.target.run({ inputs: block.descriptors, outputs: outputUnion(members) });
    } catch (e) {
      run = Promise.resolve({ ok: false, error: wireOf(e) });
    }
    run.then(
      (resp) => this.finish(members, dispatchNs, resp),
      () =>
        this.finish(members, dispatchNs, {
          ok: false,
          error: { code: 'WORKER_FAILED', message: 'model instance failed' },
        }),
    );
  }

  private finish(members: readonly Waiter[], dispatchNs: number, resp: RunResponse): void {
    this.runningBatches -= 1;
    this.runningRequests -= members.length;
    let parts: ReturnType<typeof splitOutputs> | undefined;
    let error: WireError | undefined;
    if (!resp.ok) {
      error = resp.error;
    } else {
      const t = resp.timing;
      this.reporter.execution(
        members.reduce((a, w) => a + w.rows, 0),
        t.inputNs,
        t.inferNs,
        t.outputNs,
      );
      try {
        parts = splitOutputs(
          resp.outputs,
          members.map((w) => w.rows),
        );
      } catch (e) {
        error = wireOf(e);
      }
    }
    members.forEach((w, i) => {
      w.request.signal.removeEventListener('abort', w.onAbort);
      this.order.settle(w.place, () => {
        if (w.request.signal.aborted) return w.reject(cancelled()); // client gone: drop the result
        if (error !== undefined || parts === undefined || !resp.ok) {
          return w.reject(fromWire(error ?? { code: 'INTERNAL', message: 'internal error' }));
        }
        const mine = parts[i] ?? [];
        const byName = new Map(mine.map((o) => [o.name, o]));
        w.resolve({
          outputs: w.request.outputs.flatMap((o) => byName.get(o.name) ?? []),
          queueNs: dispatchNs - w.enqueuedNs,
          inputNs: resp.timing.inputNs,
          inferNs: resp.timing.inferNs,
          outputNs: resp.timing.outputNs,
        });
      });
    });
    this.pump();
    this.checkDrained();
  }

  private checkDrained(): void {
    this.drain.settle(this.inflightCount() === 0);
  }
}

/** Every output some member asked for, in first-asked order: the batch runs them all once. */
function outputUnion(members: readonly Waiter[]): string[] {
  const names = new Set<string>();
  for (const w of members) for (const o of w.request.outputs) names.add(o.name);
  return [...names];
}

function wireOf(e: unknown): WireError {
  return e instanceof InferenceServerError
    ? e.toWire()
    : { code: 'INTERNAL', message: 'internal error' };
}

function cancelled(): InferenceServerError {
  return fail('CANCELLED', 'the request was cancelled: the client went away');
}
