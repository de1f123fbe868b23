// The direct strategy: no batching. Each request runs alone, in arrival order, on the next free
// instance. The queue lives here rather than in piscina so that a request whose client went away
// can still be withdrawn before it reaches a worker (piscina can only abort a running task by
// terminating its thread, which aborts the process inside onnxruntime-node's session.run).

import { fail, fromWire, InferenceServerError } from '../errors.js';
import type { RunResponse } from '../execution/messages.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import { byteView } from '../memory/views.js';
import { TensorBlock } from '../memory/tensor-block.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { ExecutionTarget } from './execution-target.js';
import { DrainLatch } from './drain-latch.js';
import type { Scheduler, SchedulerResult } from './scheduler.js';
import type { ValidatedRequest } from './validated-request.js';

interface Pending {
  readonly request: ValidatedRequest;
  readonly enqueuedNs: number;
  readonly resolve: (r: SchedulerResult) => void;
  readonly reject: (e: InferenceServerError) => void;
  readonly onAbort: () => void;
}

export interface DirectSchedulerOptions {
  /** Monotonic clock in ns; injected so tests control time. */
  readonly nowNs?: () => number;
  /** Cap on one request's input block (the server passes --http-max-input-size plus slack). */
  readonly maxBlockBytes?: number;
}

const hrNow = (): number => Number(process.hrtime.bigint());

export class DirectScheduler implements Scheduler {
  private readonly queue: Pending[] = [];
  private running = 0;
  private readonly drain = new DrainLatch();
  private readonly nowNs: () => number;
  private readonly maxBlockBytes: number | undefined;

  constructor(
    private readonly target: ExecutionTarget,
    private readonly reporter: ModelReporter,
    options: DirectSchedulerOptions = {},
  ) {
    this.nowNs = options.nowNs ?? hrNow;
    this.maxBlockBytes = options.maxBlockBytes;
  }

  enqueue(request: ValidatedRequest): Promise<SchedulerResult> {
    if (this.drain.draining) return Promise.reject(fail('SHUTTING_DOWN'));
    if (request.signal.aborted) return Promise.reject(cancelled());
    return new Promise<SchedulerResult>((resolve, reject) => {
      const p: Pending = {
        request,
        enqueuedNs: this.nowNs(),
        resolve,
        reject,
        onAbort: () => this.withdraw(p),
      };
      request.signal.addEventListener('abort', p.onAbort, { once: true });
      this.queue.push(p);
      this.reporter.enqueued();
      this.pump();
    });
  }

  inflightCount(): number {
    return this.queue.length + this.running;
  }

  stop(): Promise<void> {
    return this.drain.begin(this.inflightCount() === 0);
  }

  /** The client went away while the request was queued: it leaves the queue and never runs. */
  private withdraw(p: Pending): void {
    const i = this.queue.indexOf(p);
    if (i === -1) return; // already dispatched: the run finishes and its result is dropped
    this.queue.splice(i, 1);
    this.reporter.dequeued();
    p.reject(cancelled());
    this.checkDrained();
  }

  private pump(): void {
    while (this.running < this.target.capacity && this.queue.length > 0) {
      this.dispatch(this.queue.shift() as Pending);
    }
  }

  private dispatch(p: Pending): void {
    this.reporter.dequeued();
    this.running += 1;
    const queueNs = this.nowNs() - p.enqueuedNs;
    const req = p.request;
    let run: Promise<RunResponse>;
    try {
      // The single copy of each input: from the network buffer into its shared-memory slot.
      const block = TensorBlock.allocate(
        req.inputs.map((i) => ({
          name: i.name,
          datatype: i.datatype,
          shape: i.shape,
          byteLength: i.byteLength,
        })),
        { maxBytes: this.maxBlockBytes },
      );
      req.inputs.forEach((input, k) =>
        input.write(byteView(block.descriptors[k] as TensorDescriptor)),
      );
      run = this.target.run({
        inputs: block.descriptors,
        outputs: req.outputs.map((o) => o.name),
      });
    } catch (e) {
      run = Promise.resolve({
        ok: false,
        error:
          e instanceof InferenceServerError
            ? e.toWire()
            : { code: 'INTERNAL', message: 'internal error' },
      });
    }
    run.then(
      (resp) => this.finish(p, queueNs, resp),
      () =>
        this.finish(p, queueNs, {
          ok: false,
          error: { code: 'WORKER_FAILED', message: 'model instance failed' },
        }),
    );
  }

  private finish(p: Pending, queueNs: number, resp: RunResponse): void {
    this.running -= 1;
    p.request.signal.removeEventListener('abort', p.onAbort);
    if (!resp.ok) {
      p.reject(fromWire(resp.error));
    } else {
      const t = resp.timing;
      this.reporter.execution(p.request.batchSize, t.inputNs, t.inferNs, t.outputNs);
      if (p.request.signal.aborted) {
        p.reject(cancelled()); // the client is gone: drop the result
      } else {
        p.resolve({
          outputs: resp.outputs.map((d) => ({
            name: d.name,
            datatype: d.datatype,
            shape: d.shape,
            data: byteView(d),
          })),
          queueNs,
          inputNs: t.inputNs,
          inferNs: t.inferNs,
          outputNs: t.outputNs,
        });
      }
    }
    this.pump();
    this.checkDrained();
  }

  private checkDrained(): void {
    this.drain.settle(this.inflightCount() === 0);
  }
}

function cancelled(): InferenceServerError {
  return fail('CANCELLED', 'the request was cancelled: the client went away');
}
