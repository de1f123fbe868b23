// Merging requests into one batch's input tensors and splitting the batch's outputs back: pure
// functions over typed tensors (no timers, no workers). Each request's bytes are copied once, from
// its network buffer straight into its rows of the batch's SharedArrayBuffer; each request gets
// its outputs back as views of the batch's output block, with no per-request copy.

import { BytesWalker } from '../tensor/bytes-layout.js';
import { datatypeInfo } from '../tensor/datatypes.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { TensorBlock } from '../memory/tensor-block.js';
import type { BlockPool } from '../memory/block-pool.js';
import { elementCount } from '../tensor/shape.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import type { ScheduledOutput } from './scheduler.js';
import type { ValidatedInput } from './validated-request.js';

/** What merging needs of one request. */
export interface BatchMember {
  /** Rows along the batch dim (each input's shape[0] when batching). */
  readonly rows: number;
  readonly inputs: readonly ValidatedInput[];
}

/**
 * Requests with equal keys can share a batch: same input names, datatypes and non-batch dims. The
 * inputs are sorted by name, since clients may list them in any order. BYTES element sizes may
 * differ: the length-prefixed layout concatenates correctly along the batch dim.
 */
export function batchKey(inputs: readonly ValidatedInput[]): string {
  const parts = inputs.map(
    (i) => `${i.name}\u0000${i.datatype}\u0000${i.shape.slice(1).join(',')}`,
  );
  if (parts.length > 1) parts.sort();
  return parts.join('\u0001');
}

/**
 * One block with a slot per input (in the first member's input order): rows of member 0, then
 * member 1, and so on. `batched` false (max_batch_size 0) takes exactly one member, unchanged.
 * Members must share a batch key; a member whose inputs do not line up is an INTERNAL error. A
 * member whose data fails to copy throws that error (see `mergeMembers` to fail only that member).
 */
export function mergeInputs(members: readonly BatchMember[], options: MergeOptions): TensorBlock {
  const merged = tryMerge(members, options);
  if ('failed' in merged) throw merged.error;
  return merged.block;
}

export interface MergeOptions {
  readonly batched: boolean;
  readonly maxBytes?: number;
  /** Where the block's buffer comes from (and a refused attempt's goes back to); see block-pool.ts. */
  readonly pool?: BlockPool;
}

/** A batch's block, built from the members whose data copied. */
export interface MergedBatch {
  /** The block of the members left in, in order; undefined when every member was refused. */
  readonly block: TensorBlock | undefined;
  /** Per member: the error its data failed to copy with (it is left out of the block). */
  readonly refused: readonly (InferenceServerError | undefined)[];
}

/**
 * `mergeInputs`, except that a member whose data fails to copy is refused alone and the block is
 * rebuilt from the others: one client's data must never fail the requests batched with it.
 * Validation checks every element before a request is queued, so this is a safety net; the
 * rebuild (a second allocation and copy of the members left) costs only when it catches one.
 */
export function mergeMembers(members: readonly BatchMember[], options: MergeOptions): MergedBatch {
  const refused: (InferenceServerError | undefined)[] = members.map(() => undefined);
  let left = members.map((_, i) => i);
  while (left.length > 0) {
    const merged = tryMerge(
      left.map((i) => members[i] as BatchMember),
      options,
    );
    if (!('failed' in merged)) return { block: merged.block, refused };
    refused[left[merged.failed] as number] = toServerError(merged.error);
    left = left.filter((_, k) => k !== merged.failed);
  }
  return { block: undefined, refused };
}

type TryMerge =
  { readonly block: TensorBlock } | { readonly failed: number; readonly error: unknown };

/** Structural faults (members that do not line up, a block too big) throw; a copy fault returns. */
function tryMerge(members: readonly BatchMember[], options: MergeOptions): TryMerge {
  const first = members[0];
  if (first === undefined) throw fail('INTERNAL', 'a batch needs at least one request');
  if (!options.batched && members.length !== 1) {
    throw fail('INTERNAL', `a model without a batch dim runs one request, got ${members.length}`);
  }
  const aligned = members.map((m) =>
    first.inputs.map((spec) => {
      const input = m.inputs.find((i) => i.name === spec.name);
      if (input === undefined || input.datatype !== spec.datatype) {
        throw fail('INTERNAL', `batched requests differ in input "${spec.name}"`);
      }
      if (options.batched && input.shape[0] !== m.rows) {
        throw fail(
          'INTERNAL',
          `input "${spec.name}": expected ${m.rows} rows, got shape [${input.shape.join(',')}]`,
        );
      }
      return input;
    }),
  );
  const totalRows = members.reduce((a, m) => a + m.rows, 0);
  const block = TensorBlock.allocate(
    first.inputs.map((spec, k) => ({
      name: spec.name,
      datatype: spec.datatype,
      shape: options.batched ? [totalRows, ...spec.shape.slice(1)] : spec.shape,
      byteLength: aligned.reduce((a, inputs) => a + (inputs[k] as ValidatedInput).byteLength, 0),
    })),
    {
      ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
      ...(options.pool !== undefined && { pool: options.pool }),
    },
  );
  for (let k = 0; k < first.inputs.length; k++) {
    const slot = block.bytes(k);
    // Byte offsets rather than row offsets: the same walk serves fixed-size rows and BYTES, whose
    // per-request sizes vary. The single copy: network buffer -> this request's rows.
    let at = 0;
    for (let m = 0; m < aligned.length; m++) {
      const input = (aligned[m] as ValidatedInput[])[k] as ValidatedInput;
      try {
        input.write(slot.subarray(at, at + input.byteLength));
      } catch (e) {
        options.pool?.release(block.buffer); // nothing else has seen this block
        return { failed: m, error: e };
      }
      at += input.byteLength;
    }
  }
  return { block };
}

/**
 * Splits each output of a batch run into per-member views: member i gets `rows[i]` rows, in order.
 * Returns, per member, one output per entry of `outputs` (same order). A single member gets the
 * outputs whole. An output whose first dim is not the batch's row count is an INTERNAL error.
 */
export function splitOutputs(
  outputs: readonly TensorDescriptor[],
  rows: readonly number[],
): ScheduledOutput[][] {
  const perMember: ScheduledOutput[][] = rows.map(() => []);
  if (rows.length === 1) {
    perMember[0] = outputs.map((d) => ({
      name: d.name,
      datatype: d.datatype,
      shape: d.shape,
      data: new Uint8Array(d.buffer, d.byteOffset, d.byteLength),
    }));
    return perMember;
  }
  const totalRows = rows.reduce((a, b) => a + b, 0);
  for (const d of outputs) {
    if (d.shape[0] !== totalRows) {
      throw fail(
        'INTERNAL',
        `output "${d.name}" of a batch of ${totalRows} rows has shape [${d.shape.join(',')}]: ` +
          `expected the batch dim first`,
      );
    }
    const inner = d.shape.slice(1);
    const bounds = rowBoundaries(d, rows);
    rows.forEach((r, i) => {
      const start = bounds[i] as number;
      const end = bounds[i + 1] as number;
      (perMember[i] as ScheduledOutput[]).push({
        name: d.name,
        datatype: d.datatype,
        shape: [r, ...inner],
        data: new Uint8Array(d.buffer, d.byteOffset + start, end - start),
      });
    });
  }
  return perMember;
}

/** Byte offsets (within the tensor) where each member's rows start, plus the end. */
function rowBoundaries(d: TensorDescriptor, rows: readonly number[]): number[] {
  const bounds = [0];
  const perRow = elementCount(d.shape.slice(1));
  const size = datatypeInfo(d.datatype).byteSize;
  if (size > 0) {
    let at = 0;
    for (const r of rows) bounds.push((at += r * perRow * size));
    if (at !== d.byteLength) {
      throw fail(
        'INTERNAL',
        `output "${d.name}": shape [${d.shape.join(',')}] needs ${at} bytes, got ${d.byteLength}`,
      );
    }
    return bounds;
  }
  // BYTES: variable-size elements, so walk them to where each member's last one ends.
  const w = new BytesWalker(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  for (const r of rows) {
    if (w.skip(r * perRow) !== r * perRow) throw brokenBytes(d, w.end);
    bounds.push(w.end);
  }
  if (w.remaining !== 0) throw brokenBytes(d, w.end);
  return bounds;
}

function brokenBytes(d: TensorDescriptor, at: number): Error {
  return fail(
    'INTERNAL',
    `BYTES output "${d.name}" is not ${d.shape.join('x')} well-formed elements (at byte ${at})`,
  );
}
