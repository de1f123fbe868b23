// One sequence batch, as tensors: the block a run takes (each member's inputs at its row, then the
// control inputs, then the gathered implicit state) and the way back (each member's outputs as
// views of its row, its state output scattered into its slot). Rows without a member (a direct
// batch's empty slots) hold zeros, READY false, and are never scattered back. Pure functions over
// typed tensors, like batch-tensors.ts.

import { fail, toServerError, type InferenceServerError } from '../../errors.js';
import { TensorBlock, type SlotSpec } from '../../memory/tensor-block.js';
import { datatypeInfo } from '../../tensor/datatypes.js';
import { elementCount } from '../../tensor/shape.js';
import type { TensorDescriptor } from '../../tensor/tensor.js';
import { splitOutputs } from '../batch-tensors.js';
import type { ScheduledOutput } from '../scheduler.js';
import type { ValidatedInput, ValidatedRequest } from '../validated-request.js';
import {
  controlByteLength,
  writeControl,
  type ControlRow,
  type ControlSpec,
} from './control-tensors.js';
import type { StateRow, StateStore } from './state-store.js';

/** A request in a sequence batch. */
export interface SequenceMember {
  readonly request: ValidatedRequest;
  /** Its row in the batch. */
  readonly row: number;
  /** Its sequence's state slot. */
  readonly slot: number;
}

export interface SequenceBatchShape {
  /** Rows in the batch (>= every member's row + 1); 1 without batching. */
  readonly rows: number;
  /** The model has a batch dim (max_batch_size > 0). */
  readonly batched: boolean;
  readonly controls: readonly ControlSpec[];
  readonly states: StateStore | undefined;
  readonly maxBytes: number;
}

/** Per row, the member in it (undefined: an empty slot). */
function byRow(members: readonly SequenceMember[], rows: number): (SequenceMember | undefined)[] {
  const out: (SequenceMember | undefined)[] = new Array<SequenceMember | undefined>(rows).fill(
    undefined,
  );
  for (const m of members) {
    if (m.row < 0 || m.row >= rows || out[m.row] !== undefined) {
      throw fail('INTERNAL', `sequence batch row ${m.row} is outside [0, ${rows}) or taken twice`);
    }
    out[m.row] = m;
  }
  return out;
}

/**
 * The run's input block, and per member (in the order given) the error that left it out: its data
 * failed to copy (a shared-memory region shrunk since validation). A refused member's row is zeros;
 * it still holds its slot's state, but its outputs are not taken, so that state stays as it was.
 */
export interface SequenceBlock {
  readonly block: TensorBlock;
  readonly refused: readonly (InferenceServerError | undefined)[];
}

/** Builds the run's input block: data inputs, controls, states, in that order. */
export function buildSequenceBlock(
  members: readonly SequenceMember[],
  shape: SequenceBatchShape,
): SequenceBlock {
  const first = members[0];
  if (first === undefined) throw fail('INTERNAL', 'a sequence batch needs at least one request');
  const rows = byRow(members, shape.rows);
  const lead = (s: readonly number[]): number[] => (shape.batched ? [shape.rows, ...s] : [...s]);
  const specs: SlotSpec[] = [];
  const layouts: number[][] = []; // per data input, each row's byte length
  for (const spec of first.request.inputs) {
    const inner = shape.batched ? spec.shape.slice(1) : spec.shape;
    const size = datatypeInfo(spec.datatype).byteSize;
    // An empty row: zeros; for BYTES that is one zero length prefix per element (empty strings).
    const padBytes = elementCount(inner) * (size === 0 ? 4 : size);
    const lengths = rows.map((m) =>
      m === undefined ? padBytes : inputOf(m, spec.name).byteLength,
    );
    layouts.push(lengths);
    specs.push({
      name: spec.name,
      datatype: spec.datatype,
      shape: lead(inner),
      byteLength: lengths.reduce((a, b) => a + b, 0),
    });
  }
  const controlRows: ControlRow[] = rows.map((m) =>
    m?.request.sequence === undefined
      ? undefined
      : { id: m.request.sequence.id, start: m.request.sequence.start, end: m.request.sequence.end },
  );
  for (const c of shape.controls) {
    specs.push({
      name: c.name,
      datatype: c.datatype,
      shape: shape.batched ? [shape.rows, 1] : [1],
      byteLength: controlByteLength(c, controlRows),
    });
  }
  const states = shape.states?.specs ?? [];
  for (const s of states) {
    specs.push({ name: s.inputName, datatype: s.datatype, shape: lead(s.dims) });
  }
  const block = TensorBlock.allocate(specs, { maxBytes: shape.maxBytes });

  // The single copy of each member's data: network buffer (or shared-memory region) -> its row.
  const refusedRows = new Map<number, InferenceServerError>();
  first.request.inputs.forEach((spec, k) => {
    const slot = block.bytes(k);
    let at = 0;
    (layouts[k] as number[]).forEach((n, r) => {
      const m = rows[r];
      const row = slot.subarray(at, at + n);
      at += n;
      if (m === undefined || refusedRows.has(r)) return;
      try {
        inputOf(m, spec.name).write(row);
      } catch (e) {
        refusedRows.set(r, toServerError(e));
      }
    });
  });
  // A refused row is zeros in every data input, like an empty slot (BYTES inputs are checked at
  // validation, so their rows never fail here and need no length prefixes).
  first.request.inputs.forEach((_, k) => {
    const slot = block.bytes(k);
    let at = 0;
    (layouts[k] as number[]).forEach((n, r) => {
      if (refusedRows.has(r)) slot.fill(0, at, at + n);
      at += n;
    });
  });
  const base = first.request.inputs.length;
  shape.controls.forEach((c, i) => writeControl(c, block.bytes(base + i), controlRows));
  const stateRows: StateRow[] = rows.map((m) =>
    m === undefined ? undefined : { slot: m.slot, fresh: m.request.sequence?.start === true },
  );
  states.forEach((_, i) =>
    shape.states?.gather(i, block.bytes(base + shape.controls.length + i), stateRows),
  );
  return { block, refused: members.map((m) => refusedRows.get(m.row)) };
}

function inputOf(m: SequenceMember, name: string): ValidatedInput {
  const input = m.request.inputs.find((i) => i.name === name);
  if (input === undefined) throw fail('INTERNAL', `batched requests differ in input "${name}"`);
  return input;
}

/**
 * Each member's requested outputs (views of its row, in the order it asked for them), after its
 * row of each state output has been kept as its slot's state.
 */
export function takeSequenceOutputs(
  members: readonly SequenceMember[],
  outputs: readonly TensorDescriptor[],
  shape: SequenceBatchShape,
): ScheduledOutput[][] {
  const perRow = shape.batched
    ? splitOutputs(outputs, new Array<number>(shape.rows).fill(1))
    : [splitOutputs(outputs, [1])[0] ?? []];
  const states = shape.states;
  return members.map((m) => {
    const row = perRow[m.row] ?? [];
    const byName = new Map(row.map((o) => [o.name, o]));
    states?.specs.forEach((s, k) => {
      const out = byName.get(s.outputName);
      if (out === undefined) {
        throw fail('INFER_FAILED', `the model did not return state output '${s.outputName}'`);
      }
      states.scatter(k, m.slot, out.data);
    });
    return m.request.outputs.flatMap((o) => byName.get(o.name) ?? []);
  });
}
