// Node helpers for Triton's system shared memory, the client side of tritonclient.utils.
// shared_memory: a region is a file in /dev/shm named by its key (`/name`), created at a size,
// written and read with positional I/O on one kept descriptor, and removed by `destroy()`.
// Registering it with a server, and naming it on inputs and outputs, go through InferenceClient.
//
// Positional reads and writes rather than a memory mapping: Node has no mmap of its own, and a
// file descriptor keeps the helper free of native packages; the server reaches regions the same
// way (src/shared-memory/shm-region.ts).

import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { DATATYPE_TABLE, type Datatype } from '../tensor/datatypes.js';
import { tensorBytes, tensorFromBytes, type Tensor } from './client-tensor.js';
import { InferenceClientError, type RegionOutput } from './client-types.js';

/** Where POSIX shared-memory names live on Linux. */
export const SHM_DIR = '/dev/shm';

export interface CreateRegionOptions {
  /** Refuse a key whose file exists already (Triton's `create_only`). Default false. */
  readonly createOnly?: boolean;
}

export class SystemSharedMemoryRegion {
  /** The shared-memory name, `/name`: what a register call sends as `key`. */
  readonly key: string;
  readonly byteSize: number;
  #fd: number | undefined;

  private constructor(key: string, byteSize: number, fd: number) {
    this.key = key;
    this.byteSize = byteSize;
    this.#fd = fd;
  }

  /**
   * Creates (or opens) the region `key` (`/name` or `name`: one path segment, no `..`) and sets
   * its size to `byteSize` bytes (new bytes are zero).
   */
  static create(
    key: string,
    byteSize: number,
    options: CreateRegionOptions = {},
  ): SystemSharedMemoryRegion {
    const name = key.startsWith('/') ? key.slice(1) : key;
    if (name === '' || name === '.' || name === '..' || /[/\0]/.test(name)) {
      throw new InferenceClientError(
        'OPTIONS',
        `shared-memory key ${JSON.stringify(key)} is not a name: one segment, without '/'`,
      );
    }
    if (!Number.isSafeInteger(byteSize) || byteSize <= 0) {
      throw new InferenceClientError(
        'OPTIONS',
        `region size must be a positive integer, got ${byteSize}`,
      );
    }
    const flags =
      constants.O_RDWR |
      constants.O_CREAT |
      constants.O_NOFOLLOW |
      (options.createOnly === true ? constants.O_EXCL : 0);
    const fd = openSync(path.join(SHM_DIR, name), flags, 0o600);
    try {
      ftruncateSync(fd, byteSize);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new SystemSharedMemoryRegion(`/${name}`, byteSize, fd);
  }

  /** The region's file. */
  get file(): string {
    return path.join(SHM_DIR, this.key.slice(1));
  }

  /**
   * Writes a tensor's wire bytes (raw little-endian; BYTES length-prefixed), or raw bytes, at
   * `offset`; returns the number of bytes written (the `byteSize` to name them with).
   */
  write(data: Tensor | ArrayBufferView, offset = 0): number {
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : tensorBytes(data);
    this.#check(offset, bytes.byteLength);
    let done = 0;
    while (done < bytes.byteLength) {
      done += writeSync(this.#open(), bytes, done, bytes.byteLength - done, offset + done);
    }
    return bytes.byteLength;
  }

  /** `byteLength` bytes from `offset`, copied out of the region. */
  read(offset: number, byteLength: number): Uint8Array {
    this.#check(offset, byteLength);
    const out = new Uint8Array(byteLength);
    let done = 0;
    while (done < byteLength) {
      const n = readSync(this.#open(), out, done, byteLength - done, offset + done);
      if (n === 0) {
        throw new InferenceClientError(
          'PROTOCOL',
          `region ${this.key} ends at ${offset + done}, before ${offset + byteLength}`,
        );
      }
      done += n;
    }
    return out;
  }

  /**
   * A tensor read from the region: an output the server wrote there (`regionOutputs`), or any
   * datatype and shape at an offset. `base`: the registration's own offset into the region, when
   * it was registered at one (response offsets count from the registration).
   */
  readTensor(
    what:
      | RegionOutput
      | {
          readonly name?: string;
          readonly datatype: Datatype;
          readonly shape: readonly number[];
          readonly offset?: number;
          readonly byteSize?: number;
        },
    base = 0,
  ): Tensor {
    const info = DATATYPE_TABLE[what.datatype];
    const count = what.shape.reduce((a, b) => a * b, 1);
    const byteSize = what.byteSize ?? (info.byteSize > 0 ? info.byteSize * count : undefined);
    if (byteSize === undefined) {
      throw new InferenceClientError('OPTIONS', 'a BYTES tensor needs its byteSize to be read');
    }
    const bytes = this.read(base + (what.offset ?? 0), byteSize);
    return tensorFromBytes(what.name ?? '', what.datatype, what.shape, bytes);
  }

  /** Closes the descriptor and removes the file (other processes' open descriptors stay valid). */
  destroy(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    try {
      unlinkSync(this.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  #open(): number {
    if (this.#fd === undefined) {
      throw new InferenceClientError('OPTIONS', `region ${this.key} was destroyed`);
    }
    return this.#fd;
  }

  #check(offset: number, byteLength: number): void {
    // The file's size now, not at creation: its owner may have resized it.
    const size = fstatSync(this.#open()).size;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + byteLength > size) {
      throw new InferenceClientError(
        'OPTIONS',
        `${byteLength} bytes at offset ${offset} do not fit region ${this.key} of ${size} bytes`,
      );
    }
  }
}
