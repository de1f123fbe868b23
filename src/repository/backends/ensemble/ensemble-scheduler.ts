// An ensemble's scheduler: one request runs the ensemble's steps as a graph. A step starts as soon
// as every ensemble tensor it reads exists, so independent branches run at once; each step is a
// request to its model through the data plane (validated, queued and batched with that model's
// other traffic, counted in its statistics), and its outputs become ensemble tensors. Tensors pass
// between steps as views of the shared memory the step's model answered in: the next step's batch
// copies them once into its own block, as it would a client's bytes. The first failing step fails
// the request (its message says which step) and cancels the steps still queued.

import type { ModelConfig, EnsembleStepConfig } from '../../../config/model-config.js';
import { fail, InferenceServerError, toServerError } from '../../../errors.js';
import { TensorBlock } from '../../../memory/tensor-block.js';
import type { DecodedRequest, Parameters } from '../../../protocol/inference-request.js';
import type { Datatype } from '../../../tensor/datatypes.js';
import { DrainLatch } from '../../../scheduler/drain-latch.js';
import type { ScheduledOutput, Scheduler, SchedulerResult } from '../../../scheduler/scheduler.js';
import type { ValidatedRequest } from '../../../scheduler/validated-request.js';
import { stepVersion, type EnsembleHost } from './ensemble-host.js';

/** An ensemble tensor once it exists: a view of shared memory. */
interface Available {
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly data: Uint8Array;
}

export class EnsembleScheduler implements Scheduler {
  private inflight = 0;
  private readonly drain = new DrainLatch();
  private readonly steps: readonly EnsembleStepConfig[];

  constructor(
    private readonly config: ModelConfig,
    private readonly host: EnsembleHost,
    private readonly maxInputBytes: number,
  ) {
    this.steps = config.ensemble_scheduling?.step ?? [];
  }

  enqueue(request: ValidatedRequest): Promise<SchedulerResult> {
    if (this.drain.draining) return Promise.reject(fail('SHUTTING_DOWN'));
    this.inflight += 1;
    return this.run(request).finally(() => {
      this.inflight -= 1;
      this.drain.settle(this.inflight === 0);
    });
  }

  inflightCount(): number {
    return this.inflight;
  }

  stop(): Promise<void> {
    return this.drain.begin(this.inflight === 0);
  }

  /** Steps already queued in their models are answered by those models' own stop. */
  stopNow(): Promise<void> {
    return this.drain.begin(this.inflight === 0);
  }

  private async run(request: ValidatedRequest): Promise<SchedulerResult> {
    const startNs = Number(process.hrtime.bigint());
    const tensors = new Map<string, Available>();
    // The client's tensors, copied once into shared memory: every step reading them takes views.
    const block = TensorBlock.allocate(
      request.inputs.map((i) => ({
        name: i.name,
        datatype: i.datatype,
        shape: i.shape,
        byteLength: i.byteLength,
      })),
      { maxBytes: this.maxInputBytes + 64 * request.inputs.length },
    );
    request.inputs.forEach((input, k) => {
      const bytes = block.bytes(k);
      input.write(bytes);
      tensors.set(input.name, { datatype: input.datatype, shape: input.shape, data: bytes });
    });

    const cancel = new AbortController();
    const onAbort = (): void => cancel.abort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const started = new Set<number>();
    const running = new Map<number, Promise<number>>();
    let failure: InferenceServerError | undefined;
    try {
      for (;;) {
        this.steps.forEach((step, i) => {
          if (started.has(i) || !Object.values(step.input_map).every((t) => tensors.has(t))) return;
          started.add(i);
          running.set(
            i,
            this.runStep(i, step, tensors, request, cancel.signal).then(
              () => i,
              (e: unknown) => {
                failure ??= this.stepError(i, step, e);
                cancel.abort();
                return i;
              },
            ),
          );
        });
        if (running.size === 0) break;
        running.delete(await Promise.race(running.values()));
        if (failure !== undefined) {
          await Promise.all(running.values()); // steps already sent finish (cancelled if queued)
          throw failure;
        }
      }
    } finally {
      request.signal.removeEventListener('abort', onAbort);
    }
    const outputs: ScheduledOutput[] = request.outputs.map((o) => {
      const t = tensors.get(o.name);
      if (t === undefined) {
        throw fail('INTERNAL', `ensemble '${this.config.name}' did not produce output '${o.name}'`);
      }
      return { name: o.name, datatype: t.datatype, shape: t.shape, data: t.data };
    });
    return {
      outputs,
      queueNs: 0,
      inputNs: 0,
      inferNs: Number(process.hrtime.bigint()) - startNs,
      outputNs: 0,
    };
  }

  private async runStep(
    i: number,
    step: EnsembleStepConfig,
    tensors: Map<string, Available>,
    request: ValidatedRequest,
    signal: AbortSignal,
  ): Promise<void> {
    const parameters: Record<string, number> = {};
    if (request.priority > 0) parameters['priority'] = request.priority;
    if (request.timeoutUs > 0) parameters['timeout'] = request.timeoutUs;
    const decoded: DecodedRequest = {
      ...(request.id !== undefined && { id: request.id }),
      parameters: parameters as Parameters,
      inputs: Object.entries(step.input_map).map(([name, tensor]) => {
        const t = tensors.get(tensor) as Available;
        return {
          name,
          datatype: t.datatype,
          shape: t.shape,
          parameters: {},
          data: { kind: 'raw', bytes: t.data },
        };
      }),
      outputs: Object.keys(step.output_map).map((name) => ({ name, parameters: {} })),
    };
    const response = await this.host.infer(
      step.model_name,
      stepVersion(step.model_version),
      decoded,
      {
        signal,
        arrivalNs: Number(process.hrtime.bigint()),
        ...(request.trace?.span !== undefined && { parentSpan: request.trace.span }),
      },
    );
    for (const o of response.outputs) {
      const tensor = step.output_map[o.name];
      if (tensor === undefined) continue;
      tensors.set(tensor, { datatype: o.datatype, shape: o.shape, data: o.data });
    }
    for (const [output, tensor] of Object.entries(step.output_map)) {
      if (!tensors.has(tensor)) {
        throw fail('INTERNAL', `step ${i} returned no output '${output}'`);
      }
    }
  }

  /** The step's error, with its code, saying where in the ensemble it happened. */
  private stepError(i: number, step: EnsembleStepConfig, e: unknown): InferenceServerError {
    const err = toServerError(e);
    return new InferenceServerError(
      err.code,
      `in ensemble '${this.config.name}', step ${i} (model '${step.model_name}'): ${err.message}`,
    );
  }
}
