// A DataPlane for the route tests: a few fixed model signatures and the real request validation, with
// "execution" standing in for the scheduler and ONNX Runtime: output i is input i's bytes, unchanged.
// Every call to `infer`, `loadModel` and `unloadModel` is recorded, so a test can see how often (and
// with what) a route entered.

import type { TraceSettingsJson } from '../../../src/trace/trace-settings.js';
import type {
  DataPlane,
  InferContext,
  ModelConfigJson,
  ModelLoadRequest,
  ModelMetadata,
  ModelUnloadRequest,
  ModelStatisticsResponse,
  RepositoryIndexEntry,
  ServerMetadata,
} from '../../../src/dataplane/data-plane-api.js';
import { validateRequest } from '../../../src/dataplane/validate-request.js';
import { fail } from '../../../src/errors.js';
import {
  answerSharedMemory,
  type SharedMemoryAnswer,
  type SharedMemoryCall,
} from '../../../src/shared-memory/shm-calls.js';
import { ModelStats } from '../../../src/metrics/model-stats.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../../../src/protocol/inference-request.js';
import {
  fullDims,
  type ModelSignature,
  type TensorSignature,
} from '../../../src/repository/model-signature.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';

const tensor = (name: string, datatype: Datatype, dims: number[]): TensorSignature => ({
  name,
  datatype,
  dims,
  optional: false,
});

function signature(
  name: string,
  maxBatchSize: number,
  inputs: TensorSignature[],
  outputs: TensorSignature[],
): ModelSignature {
  return {
    name,
    version: 1,
    platform: 'onnxruntime_onnx',
    maxBatchSize,
    inputs: new Map(inputs.map((t) => [t.name, t])),
    outputs: new Map(outputs.map((t) => [t.name, t])),
    outputOrder: outputs.map((t) => t.name),
    requiredInputs: inputs.map((t) => t.name),
    sequence: false,
    bytesMayHoldNul: false,
  };
}

/** `echo`: one batching FP32 [4] input; `pair`: two INT32 [2] inputs, no batching. */
export const SIGNATURES: ReadonlyMap<string, ModelSignature> = new Map([
  ['echo', signature('echo', 8, [tensor('INPUT0', 'FP32', [4])], [tensor('OUTPUT0', 'FP32', [4])])],
  [
    'pair',
    signature(
      'pair',
      0,
      [tensor('A', 'INT32', [2]), tensor('B', 'INT32', [2])],
      [tensor('A_OUT', 'INT32', [2]), tensor('B_OUT', 'INT32', [2])],
    ),
  ],
]);

export interface RecordedInfer {
  readonly name: string;
  readonly version: string | undefined;
  readonly request: DecodedRequest | RawBinaryRequest;
  readonly ctx: InferContext;
}

export class FakeDataPlane implements DataPlane {
  isLive = true;
  isReady = true;
  /** Models whose `modelReady` answers false. */
  readonly notReady = new Set<string>();
  /** When set, `infer` throws this after validation, as a failed model run would. */
  runFailure: unknown;
  readonly inferCalls: RecordedInfer[] = [];
  readonly loadCalls: Array<{ name: string; request: ModelLoadRequest }> = [];
  readonly unloadCalls: Array<{ name: string; unloadDependents: boolean }> = [];
  /** When set, `loadModel` and `unloadModel` reject with this (after recording the call). */
  controlFailure: unknown;
  /** When set, `loadModel` and `unloadModel` wait for it before answering, as a slow load would. */
  controlGate: Promise<void> | undefined;
  /** Rows the index lists after the fixed ones (e.g. a model that was never loaded: a name only). */
  readonly extraIndexRows: RepositoryIndexEntry[] = [];
  readonly maxInputBytes: number;
  readonly #stats = new Map([...SIGNATURES.keys()].map((n) => [n, new ModelStats(n, 1)]));

  constructor(maxInputBytes = 1 << 20) {
    this.maxInputBytes = maxInputBytes;
  }

  live(): boolean {
    return this.isLive;
  }

  ready(): boolean {
    return this.isReady;
  }

  serverMetadata(): ServerMetadata {
    return { name: 'fake', version: '0.0.0', extensions: ['binary_tensor_data'] };
  }

  modelReady(name: string, version: string | undefined): boolean {
    this.#resolve(name, version);
    return !this.notReady.has(name);
  }

  modelMetadata(name: string, version: string | undefined): ModelMetadata {
    const sig = this.#resolve(name, version);
    const tensors = (m: ReadonlyMap<string, TensorSignature>) =>
      [...m.values()].map((t) => ({ name: t.name, datatype: t.datatype, shape: fullDims(sig, t) }));
    return {
      name,
      versions: ['1'],
      platform: sig.platform,
      inputs: tensors(sig.inputs),
      outputs: tensors(sig.outputs),
    };
  }

  modelConfig(name: string, version: string | undefined): ModelConfigJson {
    const sig = this.#resolve(name, version);
    return { name, platform: sig.platform, max_batch_size: sig.maxBatchSize };
  }

  modelStats(name: string | undefined, version: string | undefined): ModelStatisticsResponse {
    const names = name === undefined ? [...SIGNATURES.keys()] : [this.#resolve(name, version).name];
    return { model_stats: names.map((n) => (this.#stats.get(n) as ModelStats).toJson()) };
  }

  async repositoryIndex(readyOnly: boolean): Promise<RepositoryIndexEntry[]> {
    const rows: RepositoryIndexEntry[] = [
      ...[...SIGNATURES.keys()].map((name) => ({
        name,
        version: '1',
        state: 'READY' as const,
        reason: '',
      })),
      { name: 'broken', state: 'UNAVAILABLE', reason: 'config.pbtxt: no such file' },
      ...this.extraIndexRows,
    ];
    return Promise.resolve(readyOnly ? rows.filter((r) => r.state === 'READY') : rows);
  }

  async loadModel(name: string, request: ModelLoadRequest): Promise<void> {
    this.loadCalls.push({ name, request });
    await this.controlGate;
    if (this.controlFailure !== undefined) throw this.controlFailure;
  }

  async unloadModel(name: string, request: ModelUnloadRequest): Promise<void> {
    this.unloadCalls.push({ name, unloadDependents: request.unloadDependents });
    await this.controlGate;
    if (this.controlFailure !== undefined) throw this.controlFailure;
  }

  /** The fake serves no shared memory: every call is refused as --allow-client-shm=false does. */
  sharedMemory(call: SharedMemoryCall): SharedMemoryAnswer {
    return answerSharedMemory(undefined, call);
  }

  traceSetting(): TraceSettingsJson {
    throw fail('UNSUPPORTED', 'tracing is not enabled on this server');
  }

  // async like the real plane: a failure is a rejection, never a synchronous throw.
  async infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse> {
    this.inferCalls.push({ name, version, request, ctx });
    const sig = this.#resolve(name, version);
    const validated = validateRequest(sig, request, {
      signal: ctx.signal,
      arrivalNs: ctx.arrivalNs,
      maxInputBytes: this.maxInputBytes,
    });
    if (this.runFailure !== undefined) throw this.runFailure;
    const outputs = validated.outputs.map((o) => {
      // Output i answers with input i, copied the way a scheduler copies into shared memory.
      const input = validated.inputs[sig.outputOrder.indexOf(o.name)];
      if (input === undefined) throw new Error(`fake: no input for output ${o.name}`);
      const data = new Uint8Array(input.byteLength);
      input.write(data);
      const t = sig.outputs.get(o.name) as TensorSignature;
      return {
        name: o.name,
        datatype: t.datatype,
        shape: input.requestShape,
        data,
        binary: o.binary,
      };
    });
    (this.#stats.get(sig.name) as ModelStats).recordSuccess(0, 0, 0, 0, 0, 1);
    return {
      model_name: sig.name,
      model_version: '1',
      ...(validated.id !== undefined ? { id: validated.id } : {}),
      outputs,
    };
  }

  #resolve(name: string, version: string | undefined): ModelSignature {
    const sig = SIGNATURES.get(name);
    if (sig === undefined || (version !== undefined && version !== '1')) {
      throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${name}' is not found`);
    }
    return sig;
  }
}
