// The one scheduler shell: every request lives here from enqueue until it is answered. The shell
// queues it under Triton's queue policy (priority levels, max_queue_size, timeouts), withdraws it if
// its client goes away before it reaches a worker, releases results in arrival order when asked
// (preserve_ordering), keeps the pending gauge and execution stats, counts what is in flight, and
// drains on stop (or answers its whole queue at once on stopNow). A strategy
// (scheduling-strategy.ts) only plans runs and executes them.
//
// Why one shell, and the direct path as the dynamic batcher with batching disabled rather than a
// second scheduler on a shared base: that is Triton's own default scheduler, so there is a single
// lifecycle to read and test, and a lone request measured no slower through it. A sequence batcher
// or an ensemble brings its own strategy and inherits all of the above.

import { fail, fromWire, toServerError, type InferenceServerError } from '../errors.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import { DrainLatch } from './drain-latch.js';
import type { PriorityPlan } from './queue-policy.js';
import { RequestQueue, type QueueEntry } from './request-queue.js';
import { ResponseOrder } from './response-order.js';
import { SYSTEM_CLOCK, type SchedulerClock, type TimerHandle } from './scheduler-clock.js';
import type { Scheduler, SchedulerResult } from './scheduler.js';
import type { QueuedRequest, RunOutcome, SchedulingStrategy } from './scheduling-strategy.js';
import type { ValidatedRequest } from './validated-request.js';
import type { RunStamps } from '../execution/messages.js';
import type { StageTrace } from '../trace/stage-trace.js';

/** How requests wait and leave: the queue policy and ordering, with the time source. */
export interface ShellSettings {
  readonly priorities: PriorityPlan;
  readonly preserveOrdering: boolean;
  /**
   * false: requests are queued in arrival order whatever their tenant (sequence models, whose
   * requests must keep their order); default true: tenants share each level fairly.
   */
  readonly fairTenants?: boolean;
  /** Injected so tests control time and timers. */
  readonly clock?: SchedulerClock;
}

/** One accepted request, from enqueue until its promise settles. */
interface Waiter extends QueuedRequest {
  /** Set once queued: the queue stamps the time, the response order hands out the place. */
  enqueuedNs: number;
  place: number;
  readonly resolve: (r: SchedulerResult) => void;
  readonly reject: (e: InferenceServerError) => void;
  readonly onAbort: () => void;
  entry: QueueEntry<Waiter> | undefined;
}

export class SchedulerShell implements Scheduler {
  private readonly queue: RequestQueue<Waiter>;
  private readonly order: ResponseOrder;
  private readonly clock: SchedulerClock;
  private runningRuns = 0;
  private runningRequests = 0;
  private delayTimer: { readonly atNs: number; readonly handle: TimerHandle } | undefined;
  private readonly drain = new DrainLatch();
  private readonly fairTenants: boolean;

  constructor(
    private readonly strategy: SchedulingStrategy,
    private readonly reporter: ModelReporter,
    settings: ShellSettings,
  ) {
    this.clock = settings.clock ?? SYSTEM_CLOCK;
    this.fairTenants = settings.fairTenants ?? true;
    this.order = new ResponseOrder(settings.preserveOrdering);
    this.queue = new RequestQueue<Waiter>(settings.priorities, this.clock, {
      timedOut: (e) => {
        this.reporter.dequeued();
        this.answerEarly(e.value, fail('QUEUE_TIMEOUT', 'Request timeout expired'));
      },
      // The head of the queue may have changed: re-plan.
      delayed: () => this.pump(),
    });
    strategy.bindWake?.(() => this.pump());
  }

  enqueue(request: ValidatedRequest): Promise<SchedulerResult> {
    if (this.drain.draining) return Promise.reject(fail('SHUTTING_DOWN'));
    if (request.signal.aborted) return Promise.reject(cancelled());
    return new Promise<SchedulerResult>((resolve, reject) => {
      let entry: QueueEntry<Waiter>;
      const w: Waiter = {
        request,
        rows: request.batchSize,
        bytes: request.inputs.reduce((a, i) => a + i.byteLength, 0),
        key: this.strategy.keyOf(request),
        enqueuedNs: 0,
        place: -1,
        resolve,
        reject,
        onAbort: () => this.withdraw(w),
        entry: undefined,
      };
      try {
        this.strategy.admit?.(request);
      } catch (e) {
        reject(toServerError(e));
        return;
      }
      try {
        entry = this.queue.push(
          w,
          request.priority,
          request.timeoutUs,
          this.fairTenants ? request.tenant : undefined,
          w.rows,
        );
      } catch (e) {
        this.strategy.released?.(request);
        reject(toServerError(e));
        return;
      }
      w.enqueuedNs = entry.enqueuedNs;
      w.place = this.order.reserve();
      w.entry = entry;
      this.reporter.enqueued();
      request.signal.addEventListener('abort', w.onAbort, { once: true });
      request.trace?.mark('enqueue');
      this.pump();
    });
  }

  inflightCount(): number {
    return this.queue.size + this.runningRequests;
  }

  stop(): Promise<void> {
    const drained = this.drain.begin(this.inflightCount() === 0);
    this.pump(); // nothing waits for the queue delay once draining
    return drained.then(() => this.strategy.dispose?.());
  }

  stopNow(): Promise<void> {
    const drained = this.drain.begin(this.inflightCount() === 0);
    // Emptied before any is answered: answering re-plans, which must not dispatch the rest.
    const queued = this.queue.ordered();
    for (const entry of queued) this.queue.remove(entry);
    for (const entry of queued) {
      this.reporter.dequeued();
      this.answerEarly(entry.value, fail('SHUTTING_DOWN'));
    }
    return drained.then(() => this.strategy.dispose?.());
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
    this.strategy.released?.(w.request);
    this.order.settle(w.place, () => undefined);
    w.reject(error);
    this.pump(); // the head may have changed, and with it the delay to wait for
    this.checkDrained();
  }

  /** Starts runs while the strategy has capacity and its planner says a run is ready. */
  private pump(): void {
    let waitUntil: number | undefined;
    while (this.runningRuns < this.strategy.capacity && this.queue.size > 0) {
      const entries = this.queue.ordered();
      const nowNs = this.clock.nowNs();
      const plan = this.strategy.plan(
        entries.map((e) => e.value),
        {
          nowNs,
          idleInstances: this.strategy.capacity - this.runningRuns,
          draining: this.drain.draining,
        },
      );
      if (plan.kind === 'empty') break;
      if (plan.kind === 'wait') {
        waitUntil = plan.untilNs;
        break;
      }
      this.dispatch(
        plan.take.map((i) => entries[i] as QueueEntry<Waiter>),
        nowNs,
      );
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

  private dispatch(entries: readonly QueueEntry<Waiter>[], dispatchNs: number): void {
    this.queue.take(entries);
    const members = entries.map((e) => e.value);
    for (let i = 0; i < members.length; i++) this.reporter.dequeued();
    this.runningRuns += 1;
    this.runningRequests += members.length;
    // Stamped on the trace's own clock (the shell's may be a test's manual one).
    for (const w of members) w.request.trace?.mark('dispatch');
    let run: Promise<RunOutcome>;
    try {
      run = this.strategy.execute(members.map((w) => w.request));
    } catch (e) {
      run = Promise.resolve({ ok: false, error: toServerError(e).toWire() });
    }
    run.then(
      (outcome) => this.finish(members, dispatchNs, outcome),
      (e: unknown) =>
        this.finish(members, dispatchNs, { ok: false, error: toServerError(e).toWire() }),
    );
  }

  private finish(members: readonly Waiter[], dispatchNs: number, outcome: RunOutcome): void {
    this.runningRuns -= 1;
    this.runningRequests -= members.length;
    const t = outcome.timing;
    const refused = outcome.refused;
    if (t !== undefined) {
      this.reporter.execution(
        members.reduce((a, w, i) => (refused?.[i] === undefined ? a + w.rows : a), 0),
        t.inputNs,
        t.inferNs,
        t.outputNs,
      );
    }
    members.forEach((w, i) => {
      w.request.signal.removeEventListener('abort', w.onAbort);
      const own = refused?.[i];
      this.order.settle(w.place, () => {
        if (w.request.signal.aborted) return w.reject(cancelled()); // client gone: drop the result
        if (own !== undefined) return w.reject(fromWire(own));
        if (!outcome.ok) return w.reject(fromWire(outcome.error));
        if (w.request.trace !== undefined) stampRun(w.request.trace, outcome.timing.stamps);
        w.resolve({
          outputs: outcome.outputs[i] ?? [],
          queueNs: dispatchNs - w.enqueuedNs,
          inputNs: outcome.timing.inputNs,
          inferNs: outcome.timing.inferNs,
          outputNs: outcome.timing.outputNs,
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

/** A traced request's run stages, from the run's stamps (absent: a worker that stamps none). */
function stampRun(trace: StageTrace, stamps: RunStamps | undefined): void {
  if (stamps !== undefined) {
    if (stamps.postNs !== undefined) trace.mark('post', stamps.postNs);
    trace.mark('worker-start', stamps.workerStartNs);
    trace.mark('run-start', stamps.runStartNs);
    trace.mark('run-end', stamps.runEndNs);
    trace.mark('worker-end', stamps.workerEndNs);
    if (stamps.resumeNs !== undefined) trace.mark('resume', stamps.resumeNs);
  }
  trace.mark('settle');
}

function cancelled(): InferenceServerError {
  return fail('CANCELLED', 'the request was cancelled: the client went away');
}
