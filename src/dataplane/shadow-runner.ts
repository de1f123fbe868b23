// Shadow versions (config/shadow-policy.ts): a sampled share of the requests a serving version
// answers is re-run on the model's shadow version once the client has its answer, and the two
// outputs are compared with validate's arithmetic (compare/agreement.ts) into metrics
// (metrics/shadow-metrics.ts). Nothing of it can reach the client:
//
// - the sampling decision is one random draw; only a sampled request's inputs are copied, before it
//   is queued (a lone large request's buffer may move to its worker), and its outputs when they
//   are answered, before their shared memory is let go;
// - the re-run starts from a setImmediate after the data plane has returned the answer, so the
//   transport has written it; runs go one at a time, each after yielding to I/O, at the shadow
//   model's lowest priority level when it has levels;
// - at most `maxPending` wait: past that the server is too busy for the shadow to keep up, and the
//   request is dropped and counted; a shadow whose queue refuses it is counted dropped too;
// - a re-run takes only idle capacity: when its turn comes and the serving version has more
//   requests in flight than it has instances (clients' requests are waiting in its queue), it is
//   dropped and counted, since the shadow's run would take a core from them (measured: at 64 in
//   flight on a 2-core host, re-running 10 % raised the primary's p99 by 15 %);
// - a shadow that fails, is unloaded or is reloading counts `failed`; nothing is thrown.

import { setImmediate as yieldToIo } from 'node:timers/promises';
import { AgreementAccumulator } from '../compare/agreement.js';
import { hostTensorFromBytes } from '../compare/host-tensor.js';
import { shadowPolicy } from '../config/shadow-policy.js';
import { toServerError } from '../errors.js';
import { instanceTotal } from '../execution/instance-groups.js';
import type { ShadowMetrics, ShadowPair } from '../metrics/shadow-metrics.js';
import type { DecodedRequest, ResponseOutput } from '../protocol/inference-request.js';
import type { ModelRegistry } from '../repository/model-registry.js';
import type { ModelVersion } from '../repository/model-version.js';
import type { ValidatedInput } from '../scheduler/validated-request.js';
import type { Datatype } from '../tensor/datatypes.js';
import { validateRequest } from './validate-request.js';

export interface ShadowRunnerOptions {
  /** Shadow re-runs waiting or running at most; more are dropped. */
  readonly maxPending?: number;
  /** Injected for tests; Math.random by default. */
  readonly random?: () => number;
}

/** A sampled request's inputs, copied before it runs; `answered` hands over the answer given. */
export interface ShadowTicket {
  answered(outputs: readonly ResponseOutput[], elapsedNs: number): void;
}

interface Copied {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

interface Job {
  readonly pair: ShadowPair;
  readonly shadowVersion: number;
  readonly batched: boolean;
  readonly inputs: readonly Copied[];
  readonly outputs: readonly Copied[];
  readonly elapsedNs: number;
}

const DEFAULT_MAX_PENDING = 16;

export class ShadowRunner {
  readonly #queue: Job[] = [];
  #running = false;
  readonly #random: () => number;
  readonly #maxPending: number;

  constructor(
    private readonly registry: ModelRegistry,
    private readonly metrics: ShadowMetrics,
    private readonly maxInputBytes: number,
    options: ShadowRunnerOptions = {},
  ) {
    this.#random = options.random ?? Math.random;
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  }

  /** A ticket when `mv` has a shadow and this request is sampled; else undefined. */
  sample(mv: ModelVersion, inputs: readonly ValidatedInput[]): ShadowTicket | undefined {
    const policy = shadowPolicy(mv.config);
    if (policy === undefined || policy.version === mv.version) return undefined;
    if (policy.share <= 0 || this.#random() >= policy.share) return undefined;
    const copied = inputs.map((i): Copied => {
      const bytes = new Uint8Array(i.byteLength);
      i.write(bytes);
      return { name: i.name, datatype: i.datatype, shape: i.requestShape, bytes };
    });
    const pair = {
      model: mv.name,
      version: String(mv.version),
      shadow_version: String(policy.version),
    };
    return {
      answered: (outputs, elapsedNs) => {
        if (this.#queue.length + (this.#running ? 1 : 0) >= this.#maxPending) {
          this.metrics.count(pair, 'dropped');
          return;
        }
        this.#queue.push({
          pair,
          shadowVersion: policy.version,
          batched: mv.signature.maxBatchSize > 0,
          inputs: copied,
          // Outputs written to a client's shared-memory region carry no data here: not compared.
          outputs: outputs
            .filter((o) => o.inSharedMemory !== true)
            .map((o) => ({
              name: o.name,
              datatype: o.datatype,
              shape: o.shape,
              bytes: o.data.slice(),
            })),
          elapsedNs,
        });
        if (!this.#running) {
          this.#running = true;
          void this.drain();
        }
      },
    };
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        // Yield first: the answer is written, and the next I/O is served before each re-run.
        await yieldToIo();
        const job = this.#queue.shift();
        if (job === undefined) return;
        if (this.servingIsBusy(job)) {
          this.metrics.count(job.pair, 'dropped');
          continue;
        }
        await this.run(job);
      }
    } finally {
      this.#running = false;
    }
  }

  /** True while the serving version has clients' requests waiting for an instance. */
  private servingIsBusy(job: Job): boolean {
    let serving: ModelVersion;
    try {
      serving = this.registry.resolve(job.pair.model, job.pair.version);
    } catch {
      return false; // unloaded meanwhile: nothing of its clients' to wait behind
    }
    // A version with no instance group (an ensemble) is taken as one instance: busy past one.
    return serving.scheduler.inflightCount() > Math.max(1, instanceTotal(serving.config));
  }

  private async run(job: Job): Promise<void> {
    try {
      const mv = this.registry.resolve(job.pair.model, String(job.shadowVersion));
      const levels = mv.config.dynamic_batching?.priority_levels ?? 0;
      const request: DecodedRequest = {
        parameters: levels > 0 ? { priority: levels } : {},
        inputs: job.inputs.map((i) => ({
          name: i.name,
          datatype: i.datatype,
          shape: i.shape,
          parameters: {},
          data: { kind: 'raw', bytes: i.bytes },
        })),
        outputs: job.outputs.map((o) => ({ name: o.name, parameters: {} })),
      };
      const start = hrNow();
      const validated = validateRequest(mv.signature, request, {
        signal: new AbortController().signal,
        arrivalNs: start,
        maxInputBytes: this.maxInputBytes,
      });
      const result = await mv.scheduler.enqueue(validated);
      const shadowNs = hrNow() - start;
      const byName = new Map(result.outputs.map((o) => [o.name, o]));
      const compared = job.outputs.map((served) => {
        const shadow = byName.get(served.name);
        if (shadow === undefined) return { output: served.name, maxAbsDiff: Infinity };
        const acc = new AgreementAccumulator(served.name, served.datatype, 1);
        acc.add(
          'live',
          hostTensorFromBytes(served.datatype, served.shape, served.bytes),
          hostTensorFromBytes(shadow.datatype, shadow.shape, shadow.data),
          job.batched,
        );
        const r = acc.result();
        const maxAbsDiff = r.shapeMismatch !== undefined ? Infinity : r.maxAbsDiff;
        return {
          output: served.name,
          ...(maxAbsDiff !== undefined && { maxAbsDiff }),
          ...(r.classifier !== undefined && {
            top1: { rows: r.rows, agreed: Math.round(r.classifier.top1 * r.rows) },
          }),
        };
      });
      this.metrics.compared(job.pair, compared, job.elapsedNs > 0 ? shadowNs / job.elapsedNs : NaN);
    } catch (e) {
      const code = toServerError(e).code;
      this.metrics.count(
        job.pair,
        code === 'QUEUE_FULL' || code === 'QUEUE_TIMEOUT' ? 'dropped' : 'failed',
      );
    }
  }
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
