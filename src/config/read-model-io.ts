// The ONNX model's own inputs and outputs (names, ORT element types, shapes), read with onnxruntime-node
// for autocomplete. `ModelIO` is the plain-data form autocomplete takes, so unit tests can build it
// without ORT.

import { fail } from '../errors.js';

/** One model input or output as ORT reports it. */
export interface ModelIOTensor {
  readonly name: string;
  /** onnxruntime-common's `Tensor.Type` name, e.g. `float32`, `int64`, `string`. */
  readonly ortType: string;
  /**
   * Dims as ORT reports them: a number for a fixed dim; a symbolic name (`"batch"`) or `""` (unnamed)
   * for a dynamic one, or -1. Autocomplete treats every non-number and every negative number as -1.
   * An input whose rank the model does not declare reports `[]`, as ORT's C API does.
   */
  readonly shape: readonly (number | string)[];
}

export interface ModelIO {
  readonly inputs: readonly ModelIOTensor[];
  readonly outputs: readonly ModelIOTensor[];
}

/** The part of an ORT session's input/output metadata that `metadataToModelIO` reads. */
type ValueMetadata =
  | { readonly name: string; readonly isTensor: false }
  | {
      readonly name: string;
      readonly isTensor: true;
      readonly type: string;
      readonly shape: readonly (number | string)[];
    };

/**
 * An ORT session's metadata as plain `ModelIO` (what a worker reports back when its session is
 * ready, so the loader can check the config against the model it actually opened). A sequence or
 * map input or output is UNSUPPORTED; `where` names the model in that message.
 */
export function metadataToModelIO(
  inputs: readonly ValueMetadata[],
  outputs: readonly ValueMetadata[],
  where: string,
): ModelIO {
  const convert = (role: 'input' | 'output', metas: readonly ValueMetadata[]): ModelIOTensor[] =>
    metas.map((m) => {
      if (!m.isTensor) {
        throw fail(
          'UNSUPPORTED',
          `${where}: model ${role} "${m.name}" is not a tensor (a sequence or map); infernode serves tensors only`,
        );
      }
      return { name: m.name, ortType: m.type, shape: [...m.shape] };
    });
  return { inputs: convert('input', inputs), outputs: convert('output', outputs) };
}

/** Signature of the injectable reader `loadModelConfig` calls. */
export type ReadModelIO = (modelPath: string) => Promise<ModelIO>;

/**
 * Opens `modelPath` in an ORT session with graph optimization disabled (only the signature is
 * needed, and optimizing a large graph would cost seconds for nothing), reads its metadata and
 * releases the session. A missing or corrupt file is MODEL_LOAD_FAILED; a non-tensor input or
 * output (sequence, map) is UNSUPPORTED.
 */
export async function readModelIO(modelPath: string): Promise<ModelIO> {
  // Imported here, not at the top: processes that never autocomplete (and unit tests that inject a
  // reader) then never load the native addon.
  const { InferenceSession } = await import('onnxruntime-node');
  let session: Awaited<ReturnType<typeof InferenceSession.create>>;
  try {
    session = await InferenceSession.create(modelPath, { graphOptimizationLevel: 'disabled' });
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw fail(
      'MODEL_LOAD_FAILED',
      `cannot read the inputs and outputs of ${modelPath}: ${reason}`,
    );
  }
  try {
    return metadataToModelIO(session.inputMetadata, session.outputMetadata, modelPath);
  } finally {
    await session.release();
  }
}
