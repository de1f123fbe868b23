// A tensor block: one SharedArrayBuffer holding N tensor slots, each on a 64-byte boundary. It is the
// only place infernode allocates shared memory for tensors; what crosses threads are the block's
// `TensorDescriptor`s. Requests get one block for their inputs, worker replies one for their outputs,
// and the dynamic batcher one per batch, each request's rows at a byte offset in each slot.

import { datatypeInfo } from '../tensor/datatypes.js';
import type { Datatype } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { shapeText } from '../tensor/shape.js';
import type { TensorDescriptor } from '../tensor/tensor.js';
import { checkedAdd, fixedByteLength, slotOffsets } from './byte-size.js';
import { byteView } from './views.js';
import type { BlockPool } from './block-pool.js';

/**
 * Default cap on one block. Large enough for any realistic batch, small enough that a hostile shape
 * fails with a clear error instead of an allocation the machine cannot back. Callers pass their own
 * (the server derives it from --http-max-input-size).
 */
export const DEFAULT_MAX_BLOCK_BYTES = 1 << 30;

/** What one slot will hold. */
export interface SlotSpec {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  /**
   * Required for BYTES (length-prefixed elements, so the size depends on the data). For fixed-size
   * datatypes it may be omitted; if given it must equal the shape's byte size.
   */
  readonly byteLength?: number;
}

export interface BlockOptions {
  /** Refuse blocks larger than this many bytes (default DEFAULT_MAX_BLOCK_BYTES). */
  readonly maxBytes?: number;
  /**
   * Take the buffer from this pool (block-pool.ts): it may be larger than the slots need and is not
   * zero-filled, so the caller writes every slot byte, and hands it back with `pool.release`.
   */
  readonly pool?: BlockPool;
}

function slotByteLength(spec: SlotSpec): number {
  if (datatypeInfo(spec.datatype).byteSize === 0) {
    if (spec.byteLength === undefined || !Number.isSafeInteger(spec.byteLength)) {
      throw fail('INTERNAL', `slot "${spec.name}": a BYTES slot needs an explicit byte length`);
    }
    if (spec.byteLength < 0) {
      throw fail(
        'INTERNAL',
        `slot "${spec.name}": expected a byte length >= 0, got ${spec.byteLength}`,
      );
    }
    return spec.byteLength;
  }
  const bytes = fixedByteLength(spec.datatype, spec.shape);
  if (spec.byteLength !== undefined && spec.byteLength !== bytes) {
    throw fail(
      'BYTE_SIZE_MISMATCH',
      `tensor "${spec.name}": shape ${shapeText(spec.shape)} of ${spec.datatype} needs ` +
        `${bytes} bytes, got ${spec.byteLength}`,
    );
  }
  return bytes;
}

export class TensorBlock {
  /** One descriptor per slot, in the order the specs were given. */
  readonly descriptors: readonly TensorDescriptor[];

  private constructor(
    readonly buffer: SharedArrayBuffer,
    descriptors: TensorDescriptor[],
  ) {
    this.descriptors = Object.freeze(descriptors);
  }

  /** Lays the slots out (checked) and allocates the block, zero-filled unless from a pool. */
  static allocate(specs: readonly SlotSpec[], options: BlockOptions = {}): TensorBlock {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BLOCK_BYTES;
    const lengths = specs.map(slotByteLength);
    const { offsets, totalBytes } = slotOffsets(lengths);
    if (totalBytes > maxBytes) {
      throw fail(
        'BAD_REQUEST',
        `tensors need ${totalBytes} bytes of shared memory; the limit is ${maxBytes} bytes`,
      );
    }
    const buffer = options.pool?.acquire(totalBytes) ?? new SharedArrayBuffer(totalBytes);
    const descriptors = specs.map((s, i): TensorDescriptor => ({
      name: s.name,
      datatype: s.datatype,
      shape: Object.freeze([...s.shape]),
      buffer,
      byteOffset: offsets[i] ?? 0,
      byteLength: lengths[i] ?? 0,
    }));
    return new TensorBlock(buffer, descriptors);
  }

  get slotCount(): number {
    return this.descriptors.length;
  }

  descriptor(slot: number): TensorDescriptor {
    const d = this.descriptors[slot];
    if (d === undefined) {
      throw fail('INTERNAL', `block slot ${slot}: expected 0..${this.descriptors.length - 1}`);
    }
    return d;
  }

  /** The slot's bytes as a view (no copy). */
  bytes(slot: number): Uint8Array {
    return byteView(this.descriptor(slot));
  }

  /** Copies `src` into the slot starting `byteOffset` bytes into it; out-of-slot writes throw. */
  write(slot: number, src: Uint8Array, byteOffset = 0): void {
    const d = this.descriptor(slot);
    if (!Number.isSafeInteger(byteOffset) || byteOffset < 0) {
      throw fail('INTERNAL', `slot "${d.name}": expected a byte offset >= 0, got ${byteOffset}`);
    }
    const end = checkedAdd(byteOffset, src.byteLength);
    if (end > d.byteLength) {
      throw fail(
        'INTERNAL',
        `slot "${d.name}": write of ${src.byteLength} bytes at ${byteOffset} overruns its ` +
          `${d.byteLength} bytes`,
      );
    }
    new Uint8Array(this.buffer, d.byteOffset + byteOffset, src.byteLength).set(src);
  }
}
