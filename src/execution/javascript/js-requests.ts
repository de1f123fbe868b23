// The request objects a JavaScript model's execute() receives: a run's input descriptors (one batch
// block in shared memory) cut into one request per batched member, each input a typed-array view of
// that member's rows, with no copy. BYTES inputs are views of each element's bytes, decoded to
// strings only when the model asks (`strings`).

import { fail } from '../../errors.js';
import { byteView, typedViewOf } from '../../memory/views.js';
import { bytesElements } from '../../tensor/bytes-tensor.js';
import { datatypeInfo, type Datatype, type NumericView } from '../../tensor/datatypes.js';
import { inputLabel } from '../../tensor/tensor-label.js';
import { elementCount, shapeText } from '../../tensor/shape.js';
import type { TensorDescriptor } from '../../tensor/tensor.js';

const decoder = new TextDecoder('utf-8');

/** One input as the model sees it. */
export class JsInputTensor {
  constructor(
    readonly name: string,
    readonly datatype: Datatype,
    readonly shape: readonly number[],
    /**
     * The datatype's TypedArray over shared memory (FP32 -> Float32Array, INT64 -> BigInt64Array,
     * FP16/BF16 -> Uint16Array bit patterns, BOOL -> Uint8Array), or for BYTES one Uint8Array view
     * per element. Valid during execute() only: the memory is the caller's afterwards.
     */
    readonly data: NumericView | readonly Uint8Array[],
  ) {}

  /** BYTES elements decoded as UTF-8; undefined for other datatypes. */
  get strings(): string[] | undefined {
    if (this.datatype !== 'BYTES') return undefined;
    return (this.data as readonly Uint8Array[]).map((e) => decoder.decode(e));
  }
}

/** One request as the model sees it (Triton's `pb_utils.InferenceRequest`, in JS terms). */
export interface JsRequest {
  readonly inputs: Readonly<Record<string, JsInputTensor>>;
  /** The outputs the run wants, in order; every response must hold them all. */
  readonly requestedOutputs: readonly string[];
}

/**
 * One request per member: `rows[i]` rows of each input for member i, in order. Without `rows`
 * (no batching, or a run that is one request) a single request holds the inputs whole.
 */
export function buildRequests(
  inputs: readonly TensorDescriptor[],
  rows: readonly number[] | undefined,
  requestedOutputs: readonly string[],
): JsRequest[] {
  const outputs = Object.freeze([...requestedOutputs]);
  if (rows === undefined) {
    const whole = inputs.map((d) => new JsInputTensor(d.name, d.datatype, d.shape, wholeData(d)));
    return [request(whole, outputs)];
  }
  const perInput = inputs.map((d) => memberSlices(d, rows));
  return rows.map((_, i) =>
    request(
      perInput.map((slices) => slices[i] as JsInputTensor),
      outputs,
    ),
  );
}

function request(
  tensors: readonly JsInputTensor[],
  requestedOutputs: readonly string[],
): JsRequest {
  const inputs: Record<string, JsInputTensor> = {};
  for (const t of tensors) inputs[t.name] = t;
  return Object.freeze({ inputs: Object.freeze(inputs), requestedOutputs });
}

function wholeData(d: TensorDescriptor): NumericView | Uint8Array[] {
  if (d.datatype === 'BYTES') return elementsOf(d);
  return typedViewOf(d.buffer, d.byteOffset, d.byteLength, d.datatype);
}

function elementsOf(d: TensorDescriptor): Uint8Array[] {
  const elements = bytesElements(byteView(d), inputLabel(d.name));
  if (elements.length !== elementCount(d.shape)) {
    throw fail(
      'INTERNAL',
      `BYTES input "${d.name}": shape ${shapeText(d.shape)} needs ${elementCount(d.shape)} ` +
        `elements, got ${elements.length}`,
    );
  }
  return elements;
}

/** Input `d` cut along its first dim into the members' rows. */
function memberSlices(d: TensorDescriptor, rows: readonly number[]): JsInputTensor[] {
  const total = rows.reduce((a, r) => a + r, 0);
  if (d.shape[0] !== total) {
    throw fail(
      'INTERNAL',
      `input "${d.name}" of a batch of ${total} rows has shape ${shapeText(d.shape)}: expected ` +
        `the batch dim first`,
    );
  }
  const inner = d.shape.slice(1);
  const perRow = elementCount(inner);
  const elements = d.datatype === 'BYTES' ? elementsOf(d) : undefined;
  const rowBytes = perRow * datatypeInfo(d.datatype).byteSize;
  let row = 0;
  return rows.map((r) => {
    const shape = Object.freeze([r, ...inner]);
    const data =
      elements !== undefined
        ? elements.slice(row * perRow, (row + r) * perRow)
        : typedViewOf(d.buffer, d.byteOffset + row * rowBytes, r * rowBytes, d.datatype);
    row += r;
    return new JsInputTensor(d.name, d.datatype, shape, data);
  });
}
