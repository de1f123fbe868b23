// The ONNX Runtime backend's rules on a model config, beyond the common ones (config/validate.ts):
// data types onnxruntime-node has no tensor type for, optional inputs on a batching model (Triton's
// ORT backend, ValidateInputs) and KIND_MODEL instance groups. The backend's `BackendConfigRules`
// (repository/backends/onnxruntime/onnxruntime-config.ts) run them in validation's order. The
// first two have been applied to every model since before the backend seam, so the JavaScript and
// ensemble rules apply them too, as graphLevel is (javascript-parameters.ts): lifting them for
// those backends would change which configs load.

import { DATATYPE_TABLE, fromConfigType } from '../../../tensor/datatypes.js';
import { fail } from '../../../errors.js';
import type {
  InstanceGroupConfig,
  ModelConfig,
  ModelTensorConfig,
} from '../../../config/model-config.js';

/** UNSUPPORTED for a data_type with no ORT tensor type (BF16). */
export function refuseOrtlessDatatype(
  config: ModelConfig,
  what: string,
  t: ModelTensorConfig,
): void {
  const datatype = fromConfigType(t.data_type);
  if (datatype !== undefined && DATATYPE_TABLE[datatype].ort === null) {
    throw fail(
      'UNSUPPORTED',
      `${what} of ${config.name} has data_type ${t.data_type}, which onnxruntime-node cannot run`,
    );
  }
}

/** The ORT backend's rule (ValidateInputs): a batch cannot mix requests with and without it. */
export function refuseOptionalWhenBatching(
  config: ModelConfig,
  what: string,
  t: ModelTensorConfig,
): void {
  if (t.optional === true && config.max_batch_size !== 0) {
    throw fail(
      'CONFIG_INVALID',
      `optional ${what} is not supported for models that support batching (max_batch_size ${config.max_batch_size}) for ${config.name}`,
    );
  }
}

/** UNSUPPORTED for a KIND_MODEL group: an ORT session runs on the CPU or one GPU it is given. */
export function refuseKindModel(_config: ModelConfig, at: string, g: InstanceGroupConfig): void {
  if (g.kind === 'KIND_MODEL') {
    throw fail(
      'UNSUPPORTED',
      `${at} has kind KIND_MODEL, which the onnxruntime backend does not support; use KIND_CPU or KIND_GPU`,
    );
  }
}
