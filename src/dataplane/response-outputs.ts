// A response's outputs as the data plane assembles them from what the model returned: in the
// order and encoding (binary or not) the request asked for, in the dims config.pbtxt declares
// (`reshape`).

import type { ResponseOutput } from '../protocol/inference-request.js';
import type { ModelVersion } from '../repository/model-version.js';
import type { ScheduledOutput } from '../scheduler/scheduler.js';
import type { ValidatedOutput } from '../scheduler/validated-request.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import { reshape } from '../tensor/shape.js';

/** A one-shot request's outputs, from its scheduler's result; `binary`: by output name. */
export function scheduledOutputs(
  mv: ModelVersion,
  scheduled: readonly ScheduledOutput[],
  binary: ReadonlyMap<string, boolean>,
): ResponseOutput[] {
  return scheduled.map((o): ResponseOutput => ({
    name: o.name,
    datatype: o.datatype,
    shape: outputShape(mv, o.name, o.shape),
    data: o.data,
    binary: binary.get(o.name) === true,
  }));
}

/**
 * One response of a decoupled model: the requested outputs it carries, in the request's order (an
 * output the response lacks is left out).
 */
export function streamedOutputs(
  mv: ModelVersion,
  requested: readonly ValidatedOutput[],
  sent: readonly TensorDescriptor[],
): ResponseOutput[] {
  const byName = new Map(sent.map((d) => [d.name, d]));
  return requested.flatMap((o) => {
    const d = byName.get(o.name);
    if (d === undefined) return [];
    return [
      {
        name: d.name,
        datatype: d.datatype,
        shape: outputShape(mv, d.name, d.shape),
        data: new Uint8Array(d.buffer, d.byteOffset, d.byteLength),
        binary: o.binary,
      },
    ];
  });
}

/** An output with `reshape` in config.pbtxt is returned in the configured dims. */
function outputShape(
  mv: ModelVersion,
  name: string,
  modelShape: readonly number[],
): readonly number[] {
  const t = mv.signature.outputs.get(name);
  if (t === undefined || t.reshape === undefined) return modelShape;
  return reshape(modelShape, t.dims, mv.signature.maxBatchSize > 0);
}
