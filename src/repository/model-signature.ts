// A model version's tensor signature, derived once from its frozen config at load: each input and
// output with its datatype resolved through the datatype table, so validation does map lookups
// instead of re-reading the config per request.

import type { ModelConfig, ModelTensorConfig } from '../config/model-config.js';
import { fromConfigType, type Datatype } from '../tensor/datatypes.js';

export interface TensorSignature {
  readonly name: string;
  readonly datatype: Datatype;
  /** Dims as configured (without the batch dim when batching); -1 = any. */
  readonly dims: readonly number[];
  /** The shape the model itself takes, when config.pbtxt reshapes (without the batch dim). */
  readonly reshape?: readonly number[];
  readonly optional: boolean;
}

export interface ModelSignature {
  readonly name: string;
  readonly version: number;
  readonly platform: string;
  readonly maxBatchSize: number;
  readonly inputs: ReadonlyMap<string, TensorSignature>;
  readonly outputs: ReadonlyMap<string, TensorSignature>;
  /** Output names in config order: what "all outputs" means. */
  readonly outputOrder: readonly string[];
  readonly requiredInputs: readonly string[];
  /** The model has `sequence_batching`: every request belongs to a sequence. */
  readonly sequence: boolean;
  /**
   * BYTES elements may hold NUL bytes, as the model's backend says: true for JavaScript models
   * (they get the bytes as sent) and ensembles (each step's model checks for itself); ONNX Runtime
   * truncates them, so ONNX models refuse them.
   */
  readonly bytesMayHoldNul: boolean;
  /**
   * A decoupled JavaScript model (`model_transaction_policy { decoupled: true }`): its responses
   * need a streaming transport (InferContext.responses). Set by backends/start-instances.ts.
   */
  readonly decoupled?: boolean;
}

/** What the model's backend adds to the signature its config gives. */
export interface BackendTraits {
  readonly bytesMayHoldNul: boolean;
  readonly decoupled?: boolean;
}

function tensor(t: ModelTensorConfig): TensorSignature {
  const datatype = fromConfigType(t.data_type);
  // The config pipeline has validated data types; reaching this is a bug, not bad input.
  if (datatype === undefined) throw new Error(`unvalidated data_type ${t.data_type}`);
  return Object.freeze({
    name: t.name,
    datatype,
    dims: t.dims,
    ...(t.reshape !== undefined ? { reshape: t.reshape.shape } : {}),
    optional: t.optional === true,
  });
}

export function modelSignature(
  config: ModelConfig,
  version: number,
  traits: BackendTraits = { bytesMayHoldNul: false },
): ModelSignature {
  const inputs = new Map(config.input.map((t) => [t.name, tensor(t)]));
  const outputs = new Map(config.output.map((t) => [t.name, tensor(t)]));
  return Object.freeze({
    name: config.name,
    version,
    platform: config.platform,
    maxBatchSize: config.max_batch_size,
    inputs,
    outputs,
    outputOrder: config.output.map((t) => t.name),
    requiredInputs: config.input.filter((t) => t.optional !== true).map((t) => t.name),
    sequence: config.sequence_batching !== undefined,
    bytesMayHoldNul: traits.bytesMayHoldNul,
    ...(traits.decoupled === true ? { decoupled: true } : {}),
  });
}

/** `[-1,16]` as a client sees the input: the batch dim (-1) first when the model batches. */
export function fullDims(sig: ModelSignature, t: TensorSignature): number[] {
  return sig.maxBatchSize > 0 ? [-1, ...t.dims] : [...t.dims];
}
