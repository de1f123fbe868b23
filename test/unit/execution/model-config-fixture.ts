// A minimal normalized ModelConfig for execution tests, with parameters and accelerators as options,
// and the OrtParameters the config pipeline reads from it.

import type {
  ExecutionAcceleratorConfig,
  InstanceGroupConfig,
  ModelConfig,
} from '../../../src/config/model-config.js';
import {
  readOrtParameters,
  type OrtParameters,
} from '../../../src/execution/onnxruntime/config/ort-parameters.js';

export interface ConfigOptions {
  readonly name?: string;
  readonly parameters?: Readonly<Record<string, string>>;
  readonly graphLevel?: number;
  readonly gpu?: readonly ExecutionAcceleratorConfig[];
  readonly cpu?: readonly ExecutionAcceleratorConfig[];
  readonly groups?: readonly InstanceGroupConfig[];
}

export function modelConfig(o: ConfigOptions = {}): ModelConfig {
  const name = o.name ?? 'simple';
  const parameters: Record<string, { string_value: string }> = {};
  for (const [k, v] of Object.entries(o.parameters ?? {})) parameters[k] = { string_value: v };
  const accelerators =
    o.gpu !== undefined || o.cpu !== undefined
      ? { gpu_execution_accelerator: o.gpu ?? [], cpu_execution_accelerator: o.cpu ?? [] }
      : undefined;
  return {
    name,
    platform: 'onnxruntime_onnx',
    backend: 'onnxruntime',
    version_policy: { latest: { num_versions: 1 } },
    max_batch_size: 8,
    input: [{ name: 'INPUT0', data_type: 'TYPE_INT32', dims: [16] }],
    output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT32', dims: [16] }],
    instance_group: o.groups ?? [{ name: `${name}_0`, kind: 'KIND_CPU', count: 2, gpus: [] }],
    default_model_filename: 'model.onnx',
    optimization: {
      ...(o.graphLevel !== undefined ? { graph: { level: o.graphLevel } } : {}),
      ...(accelerators !== undefined ? { execution_accelerators: accelerators } : {}),
    },
    model_warmup: [],
    model_transaction_policy: { decoupled: false },
    parameters,
  };
}

export const accel = (
  name: string,
  parameters: Readonly<Record<string, string>> = {},
): ExecutionAcceleratorConfig => ({ name, parameters });

/** The OrtParameters the config pipeline reads from `config`. */
export const ortOf = (config: ModelConfig): OrtParameters => readOrtParameters(config).parameters;
