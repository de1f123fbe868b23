// Implicit state (`sequence_batching.state`): each state tensor's rows for every sequence slot, in
// one shared-memory tensor block the sequence batcher owns, `[slots, ...dims]` per state. Before a
// run, each member's row is gathered into the batch's state input (the one copy the batch needs);
// after it, the model's state output row is scattered back into the member's slot. A START row is
// gathered from the initial state instead (zeros unless `initial_state` gives a data file; Triton
// leaves it undefined without one).

import type { Datatype } from '../../tensor/datatypes.js';
import { datatypeInfo } from '../../tensor/datatypes.js';
import { fail } from '../../errors.js';
import { TensorBlock } from '../../memory/tensor-block.js';
import { elementCount } from '../../tensor/shape.js';

export interface StateSpec {
  /** The model input the state is fed to. */
  readonly inputName: string;
  /** The model output it is read back from. */
  readonly outputName: string;
  readonly datatype: Datatype;
  /** Without the batch dim. */
  readonly dims: readonly number[];
  /** The initial row's bytes; undefined: zeros. */
  readonly initial?: Uint8Array;
}

/** Where a batch row's state comes from. */
export type StateRow =
  /** A member's slot: its state, or the initial state when its request starts the sequence. */
  | { readonly slot: number; readonly fresh: boolean }
  /** A padding row (direct strategy): zeros, never scattered back. */
  | undefined;

export class StateStore {
  private readonly block: TensorBlock;
  private readonly rowBytes: readonly number[];

  constructor(
    readonly specs: readonly StateSpec[],
    readonly slots: number,
  ) {
    this.rowBytes = specs.map((s) => {
      const size = datatypeInfo(s.datatype).byteSize;
      if (size === 0) throw fail('INTERNAL', `state '${s.inputName}': BYTES state has no rows`);
      const bytes = elementCount(s.dims) * size;
      if (s.initial !== undefined && s.initial.byteLength !== bytes) {
        throw fail(
          'CONFIG_INVALID',
          `initial state of '${s.inputName}' has ${s.initial.byteLength} bytes; dims [${s.dims.join(',')}] of ${s.datatype} need ${bytes}`,
        );
      }
      return bytes;
    });
    // Sized for every slot at once, so no sequence ever waits for state memory.
    this.block = TensorBlock.allocate(
      specs.map((s) => ({ name: s.inputName, datatype: s.datatype, shape: [slots, ...s.dims] })),
      { maxBytes: Number.MAX_SAFE_INTEGER },
    );
  }

  /** Bytes one row of state `k` occupies. */
  rowByteLength(k: number): number {
    return this.rowBytes[k] as number;
  }

  /** Total bytes held for every slot of every state. */
  get byteLength(): number {
    return this.block.buffer.byteLength;
  }

  /** Copies each row's state of `k` into `target` (the batch's state input), row after row. */
  gather(k: number, target: Uint8Array, rows: readonly StateRow[]): void {
    const n = this.rowByteLength(k);
    const all = this.block.bytes(k);
    const initial = (this.specs[k] as StateSpec).initial;
    rows.forEach((row, r) => {
      const at = r * n;
      if (row === undefined) return; // the batch block is zero-filled
      if (row.fresh) {
        if (initial === undefined) target.fill(0, at, at + n);
        else target.set(initial, at);
      } else {
        target.set(all.subarray(row.slot * n, (row.slot + 1) * n), at);
      }
    });
  }

  /** Keeps `row` (one row of the model's state output `k`) as the slot's state. */
  scatter(k: number, slot: number, row: Uint8Array): void {
    const n = this.rowByteLength(k);
    if (row.byteLength !== n) {
      throw fail(
        'INFER_FAILED',
        `state output '${(this.specs[k] as StateSpec).outputName}' returned ${row.byteLength} bytes per sequence; its dims need ${n}`,
      );
    }
    this.block.write(k, row, slot * n);
  }
}
