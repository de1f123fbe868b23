// Triton config features infernode parses but does not implement. Ones that would change what a
// client gets (iterative sequences, decoupled responses, a response cache, ...) are UNSUPPORTED errors
// naming the field, so a Triton config never half-works silently. Ones that only tune hardware or
// bookkeeping infernode does not have are accepted with a warning saying they are ignored.

import { fail } from '../errors.js';
import { rulesFor, type BackendRuleList } from './backend-rules.js';
import type { RawModelConfig } from './generated/model-config-schema.js';

/** Runtime library names that mean "the onnxruntime backend" (Triton's default for it is ""). */
const ORT_RUNTIMES = new Set(['', 'libtriton_onnxruntime.so', 'triton_onnxruntime.dll']);

function unsupported(model: string, field: string, why: string): Error {
  return fail(
    'UNSUPPORTED',
    `model '${model}': ${field} is not supported by infernode (${why}); remove it from config.pbtxt`,
  );
}

/**
 * Throws UNSUPPORTED for the first field infernode cannot honour; returns warnings for fields it
 * ignores. Runs on the raw config (after autocomplete), since normalization drops these fields.
 * `backends` (the registry's list) say which backends' models may be decoupled.
 */
export function checkSupported(raw: RawModelConfig, backends: BackendRuleList): string[] {
  const model = raw.name ?? '';
  const no = (field: string, why: string): never => {
    throw unsupported(model, field, why);
  };

  if (raw.sequence_batching?.iterative_sequence === true) {
    no('sequence_batching { iterative_sequence: true }', 'requests are never rescheduled');
  }
  if ((raw.batch_input?.length ?? 0) > 0)
    no('batch_input', 'ragged batch inputs are not generated');
  if ((raw.batch_output?.length ?? 0) > 0) no('batch_output', 'batch outputs are not scattered');
  // A backend whose rules say so (JavaScript) may be decoupled: its requests get response senders.
  // An ONNX model, or an ensemble, answers each request with exactly one response.
  if (
    raw.model_transaction_policy?.decoupled === true &&
    rulesFor(backends, raw)?.mayBeDecoupled !== true
  ) {
    const may = backends.filter((r) => r.mayBeDecoupled).map((r) => `backend "${r.backend}"`);
    no(
      'model_transaction_policy { decoupled: true }',
      `every request to an ONNX model gets exactly one response (${may.join(', ')} ` +
        `models may be decoupled)`,
    );
  }
  if ((raw.model_repository_agents?.agents?.length ?? 0) > 0) {
    no('model_repository_agents', 'repository agents cannot run');
  }
  if ((raw.model_operations?.op_library_filename?.length ?? 0) > 0) {
    no(
      'model_operations.op_library_filename',
      'onnxruntime-node cannot register custom-op libraries',
    );
  }
  if (!ORT_RUNTIMES.has(raw.runtime ?? '')) {
    no(`runtime "${raw.runtime ?? ''}"`, 'the onnxruntime backend is built in');
  }
  for (const [i, g] of (raw.instance_group ?? []).entries()) {
    const at = `instance_group[${i}]`;
    if (g.passive === true) no(`${at}.passive`, 'every instance takes requests');
    if ((g.secondary_devices?.length ?? 0) > 0)
      no(`${at}.secondary_devices`, 'there are no NVDLA devices');
    if ((g.host_policy ?? '') !== '') no(`${at}.host_policy`, 'there are no host policies');
    if ((g.profile?.length ?? 0) > 0) {
      // Triton's own check (ValidateInstanceGroup): profiles are TensorRT-only.
      throw fail(
        'CONFIG_INVALID',
        `instance group ${g.name ?? at} of model ${model} and platform ${raw.platform ?? ''} specifies profile field which is only supported for TensorRT models`,
      );
    }
  }
  for (const [role, list] of [
    ['input', raw.input ?? []],
    ['output', raw.output ?? []],
  ] as const) {
    for (const t of list) {
      if (t.is_shape_tensor === true) {
        throw fail(
          'CONFIG_INVALID',
          `model ${role} '${t.name ?? ''}' of model ${model}: shape tensors are only supported for TensorRT platform`,
        );
      }
      if (t.is_non_linear_format_io === true) {
        throw fail(
          'CONFIG_INVALID',
          `model ${role} '${t.name ?? ''}' of model ${model}: non-linear IO format is only supported for TensorRT platform`,
        );
      }
    }
  }

  const warnings: string[] = [];
  const ignored = (field: string, why: string): void => {
    warnings.push(`model '${model}': ${field} is ignored (${why})`);
  };
  const opt = raw.optimization;
  if (opt?.cuda !== undefined)
    ignored('optimization.cuda', 'CUDA graphs are a TensorRT/PyTorch feature');
  if ((opt?.priority ?? 'PRIORITY_DEFAULT') !== 'PRIORITY_DEFAULT') {
    ignored('optimization.priority', 'stream priority is a TensorRT feature');
  }
  if ((opt?.gather_kernel_buffer_threshold ?? 0) !== 0) {
    ignored('optimization.gather_kernel_buffer_threshold', 'inputs are gathered on the CPU');
  }
  if (opt?.eager_batching === true)
    ignored('optimization.eager_batching', 'batches are never delayed for memory');
  if (Object.keys(raw.cc_model_filenames ?? {}).length > 0) {
    ignored('cc_model_filenames', 'no GPU compute capability selects a model file');
  }
  if ((raw.model_metrics?.metric_control?.length ?? 0) > 0) {
    ignored('model_metrics', 'custom histogram buckets are not configurable per model');
  }
  return warnings;
}
