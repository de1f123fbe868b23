// What a sequence-batched model must take and give, read from its parsed config.pbtxt: the listed
// inputs and outputs, plus every control input (a [1] tensor per row, INT32 for the int32 flags or
// the CORRID's data_type) and both ends of every implicit state. Tests compare it with the ONNX
// model's own signature, so a config and its generated model cannot drift apart.

import type ort from 'onnxruntime-node';
import type { RawModelConfig } from '../../src/config/generated/model-config-schema.js';
import { DATATYPE_TABLE, fromOrtType } from '../../src/tensor/datatypes.js';

export interface IoTensor {
  readonly name: string;
  /** A config TYPE_* name. */
  readonly dataType: string;
  /** Without the batch dimension. */
  readonly dims: readonly number[];
}

export interface SequenceModelIo {
  readonly inputs: IoTensor[];
  readonly outputs: IoTensor[];
}

const byName = (a: IoTensor, b: IoTensor): number => a.name.localeCompare(b.name);

function controlType(control: {
  data_type?: string;
  int32_false_true?: readonly number[];
}): string {
  if (control.data_type !== undefined) return control.data_type;
  if (control.int32_false_true !== undefined) return 'TYPE_INT32';
  throw new Error(`control ${JSON.stringify(control)}: expected data_type or int32_false_true`);
}

/** The model signature `raw` implies, inputs and outputs each sorted by name. */
export function sequenceModelIo(raw: RawModelConfig): SequenceModelIo {
  const seq = raw.sequence_batching;
  if (seq === undefined) throw new Error(`${raw.name}: expected sequence_batching, found none`);
  const tensor = (t: {
    name?: string;
    data_type?: string;
    dims?: readonly number[];
  }): IoTensor => ({
    name: t.name ?? '',
    dataType: t.data_type ?? '',
    dims: t.dims ?? [],
  });
  const inputs = (raw.input ?? []).map(tensor);
  const outputs = (raw.output ?? []).map(tensor);
  for (const c of seq.control_input ?? []) {
    for (const control of c.control ?? []) {
      inputs.push({ name: c.name ?? '', dataType: controlType(control), dims: [1] });
    }
  }
  for (const s of seq.state ?? []) {
    inputs.push({ name: s.input_name ?? '', dataType: s.data_type ?? '', dims: s.dims ?? [] });
    outputs.push({ name: s.output_name ?? '', dataType: s.data_type ?? '', dims: s.dims ?? [] });
  }
  return { inputs: inputs.sort(byName), outputs: outputs.sort(byName) };
}

/** An ONNX session's signature in the same form: datatype as TYPE_*, batch dimension dropped. */
export function sessionIo(session: ort.InferenceSession): SequenceModelIo {
  const read = (metas: readonly ort.InferenceSession.ValueMetadata[]): IoTensor[] =>
    metas
      .map((m) => {
        if (!m.isTensor) throw new Error(`${m.name}: expected a tensor, got a non-tensor value`);
        const datatype = fromOrtType(m.type);
        if (datatype === undefined)
          throw new Error(`${m.name}: ORT type ${m.type} is not servable`);
        if (typeof m.shape[0] !== 'string') {
          throw new Error(`${m.name}: expected a symbolic batch dimension, got ${m.shape[0]}`);
        }
        return {
          name: m.name,
          dataType: DATATYPE_TABLE[datatype].config,
          dims: m.shape.slice(1).map((d) => (typeof d === 'number' ? d : -1)),
        };
      })
      .sort(byName);
  return { inputs: read(session.inputMetadata), outputs: read(session.outputMetadata) };
}
