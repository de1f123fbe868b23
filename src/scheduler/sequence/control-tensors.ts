// The sequence batcher's control inputs (`sequence_batching.control_input`): for each batch row,
// START and END are true on the request that starts or ends its sequence, READY on every row that
// holds a request (false on a direct batch's empty slots), and CORRID carries the correlation id.
// Each is a `[batch, 1]` tensor (`[1]` without batching), filled here from the configured
// false/true values.

import type { SequenceBatchingConfig, SequenceControlKind } from '../../config/model-config.js';
import { fromConfigType, type Datatype } from '../../tensor/datatypes.js';
import { fail } from '../../errors.js';

export type ControlSpec =
  | {
      readonly name: string;
      readonly kind: Exclude<SequenceControlKind, 'CONTROL_SEQUENCE_CORRID'>;
      readonly datatype: 'INT32' | 'FP32' | 'BOOL';
      readonly values: readonly [number, number];
    }
  | {
      readonly name: string;
      readonly kind: 'CONTROL_SEQUENCE_CORRID';
      readonly datatype: Datatype;
    };

/** What one batch row says about its request; undefined: a padding row (READY false). */
export type ControlRow =
  { readonly id: number | string; readonly start: boolean; readonly end: boolean } | undefined;

export function controlSpecs(sb: SequenceBatchingConfig): ControlSpec[] {
  return sb.control_input.map((input): ControlSpec => {
    const c = input.control[0];
    if (c === undefined) throw fail('INTERNAL', `control input '${input.name}' has no control`);
    if (c.kind === 'CONTROL_SEQUENCE_CORRID') {
      const datatype = fromConfigType(c.data_type ?? '');
      if (datatype === undefined) throw fail('INTERNAL', `CORRID '${input.name}' has no type`);
      return { name: input.name, kind: c.kind, datatype };
    }
    if (c.int32_false_true.length === 2) {
      const [f, t] = c.int32_false_true as [number, number];
      return { name: input.name, kind: c.kind, datatype: 'INT32', values: [f, t] };
    }
    if (c.fp32_false_true.length === 2) {
      const [f, t] = c.fp32_false_true as [number, number];
      return { name: input.name, kind: c.kind, datatype: 'FP32', values: [f, t] };
    }
    const [f, t] = c.bool_false_true as [boolean, boolean];
    return { name: input.name, kind: c.kind, datatype: 'BOOL', values: [Number(f), Number(t)] };
  });
}

const CORRID_MAX: Partial<Record<Datatype, number>> = {
  INT32: 2 ** 31 - 1,
  UINT32: 2 ** 32 - 1,
  INT64: Number.MAX_SAFE_INTEGER,
  UINT64: Number.MAX_SAFE_INTEGER,
};

/** Refuses a correlation id the model's CORRID tensor cannot carry (checked when it is queued). */
export function checkCorrelationId(
  specs: readonly ControlSpec[],
  model: string,
  id: number | string,
): void {
  for (const s of specs) {
    if (s.kind !== 'CONTROL_SEQUENCE_CORRID' || s.datatype === 'BYTES') continue;
    const max = CORRID_MAX[s.datatype] ?? 0;
    if (typeof id !== 'number' || id > max) {
      throw fail(
        'BAD_PARAMETER',
        `model '${model}' takes correlation ids as ${s.datatype} (control input '${s.name}'): expected an integer in [1, ${max}], got ${JSON.stringify(id)}`,
      );
    }
  }
}

const encoder = new TextEncoder();

/** Bytes the control tensor takes for `rows` (BYTES CORRID: each id length-prefixed). */
export function controlByteLength(spec: ControlSpec, rows: readonly ControlRow[]): number {
  if (spec.datatype !== 'BYTES') return rows.length * elementBytes(spec.datatype);
  return rows.reduce(
    (a, r) => a + 4 + (r === undefined ? 0 : encoder.encode(String(r.id)).length),
    0,
  );
}

function elementBytes(d: Datatype): number {
  return d === 'BOOL' ? 1 : d === 'INT64' || d === 'UINT64' ? 8 : 4;
}

/** Fills `target` (exactly controlByteLength bytes, zeroed) with one value per row. */
export function writeControl(
  spec: ControlSpec,
  target: Uint8Array,
  rows: readonly ControlRow[],
): void {
  const view = new DataView(target.buffer, target.byteOffset, target.byteLength);
  if (spec.kind === 'CONTROL_SEQUENCE_CORRID') {
    let at = 0;
    for (const row of rows) {
      if (spec.datatype === 'BYTES') {
        const bytes = row === undefined ? new Uint8Array(0) : encoder.encode(String(row.id));
        view.setUint32(at, bytes.length, true);
        target.set(bytes, at + 4);
        at += 4 + bytes.length;
        continue;
      }
      const id = row === undefined ? 0 : Number(row.id);
      if (spec.datatype === 'INT64') view.setBigInt64(at, BigInt(id), true);
      else if (spec.datatype === 'UINT64') view.setBigUint64(at, BigInt(id), true);
      else if (spec.datatype === 'UINT32') view.setUint32(at, id, true);
      else view.setInt32(at, id, true);
      at += elementBytes(spec.datatype);
    }
    return;
  }
  rows.forEach((row, r) => {
    const on =
      row !== undefined &&
      (spec.kind === 'CONTROL_SEQUENCE_READY' ||
        (spec.kind === 'CONTROL_SEQUENCE_START' && row.start) ||
        (spec.kind === 'CONTROL_SEQUENCE_END' && row.end));
    const v = spec.values[on ? 1 : 0];
    if (spec.datatype === 'INT32') view.setInt32(r * 4, v, true);
    else if (spec.datatype === 'FP32') view.setFloat32(r * 4, v, true);
    else view.setUint8(r, v);
  });
}
