// How tensor-data errors name the tensor they are about: "input INPUT0: expected 64 bytes for shape
// [1,16] FP32, got 68". The codecs take the label optionally; validation always passes one.

import type { Datatype } from './datatypes.js';
import { shapeText } from './shape.js';

/** Which tensor a check is about, only used to write error messages. */
export interface TensorLabel {
  /** e.g. "input INPUT0" or "output OUTPUT0". */
  readonly what: string;
  readonly shape?: readonly number[];
}

/** "input INPUT0: " or "" without a label. */
export function labelPrefix(label: TensorLabel | undefined): string {
  return label === undefined ? '' : `${label.what}: `;
}

/** " for shape [1,16]" (plus " FP32" when a datatype is given), or "" without a shape. */
export function forShape(label: TensorLabel | undefined, datatype?: Datatype): string {
  if (label?.shape === undefined) return datatype === undefined ? '' : ` of ${datatype}`;
  return ` for shape ${shapeText(label.shape)}${datatype === undefined ? '' : ` ${datatype}`}`;
}

/** The label validation uses for a request input. */
export function inputLabel(name: string, shape?: readonly number[]): TensorLabel {
  return shape === undefined ? { what: `input ${name}` } : { what: `input ${name}`, shape };
}
