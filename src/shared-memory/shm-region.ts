// One registered system shared-memory region: the open fd of its /dev/shm file and the window
// (offset, byte_size) the client registered. Reads and writes are positional (pread/pwrite on the
// fd), never a memory mapping: a file its owner shrinks gives a short read and a clear error, where
// a mapping would turn the access into SIGBUS. Every access checks the window against the file's
// size at that moment.
//
// Ownership: the registry holds one reference; each request that resolved the region holds one
// more until it is answered (`retain` / `release`). The fd closes when the last reference goes. A
// region unregistered while a request holds it stays registered until that request is answered
// (region-registry.ts), so the fd outlives the unregister call either way.

import { closeSync, fstatSync, readSync } from 'node:fs';
import { fail } from '../errors.js';
import { truncated, writeIntoRegion, type RegionWrite } from './region-write.js';

/** Triton's SIZE_MAX: offsets and byte sizes are uint64 on the wire. */
const UINT64_MAX = 2n ** 64n - 1n;

export interface RegionStatus {
  readonly name: string;
  readonly key: string;
  readonly offset: number;
  readonly byte_size: number;
}

export class ShmRegion {
  #fd: number;
  #refs = 1;

  constructor(
    readonly name: string,
    readonly key: string,
    readonly offset: number,
    readonly byteSize: number,
    fd: number,
  ) {
    this.#fd = fd;
  }

  status(): RegionStatus {
    return { name: this.name, key: this.key, offset: this.offset, byte_size: this.byteSize };
  }

  /** True while the fd is open (some reference remains). */
  get open(): boolean {
    return this.#fd >= 0;
  }

  /** True while a request holds it besides the registry. */
  get inUse(): boolean {
    return this.#refs > 1;
  }

  retain(): void {
    this.#refs++;
  }

  /** Drops one reference; the last one closes the fd. */
  release(): void {
    if (--this.#refs > 0 || this.#fd < 0) return;
    const fd = this.#fd;
    this.#fd = -1;
    closeSync(fd);
  }

  /**
   * Checks that `byteSize` bytes at `offset` (relative to the registered window) lie inside the
   * window, in Triton's words (shared_memory_manager.cc GetMemoryInfo).
   */
  checkSlice(offset: number, byteSize: number): void {
    if (offset >= this.byteSize && !(offset === 0 && byteSize === 0)) {
      throw fail('SHM_BAD_SLICE', `Invalid offset for shared memory region: '${this.name}'`);
    }
    // Offsets and byte sizes are uint64 (size_t) in Triton, whose sum could wrap: it refuses a sum
    // past 2^64 - 1 before the bounds check, and so does this, in exact integers (the values may
    // be past 2^53, see shm-parameters.ts; the test is only paid for past 2^53).
    if (
      offset + byteSize > Number.MAX_SAFE_INTEGER &&
      BigInt(byteSize) > UINT64_MAX - BigInt(offset)
    ) {
      throw fail(
        'SHM_BAD_SLICE',
        `Integer overflow detected: byte_size (${BigInt(byteSize)}) + offset ` +
          `(${BigInt(offset)}) exceeds maximum value (${UINT64_MAX}) for region '${this.name}'`,
      );
    }
    if (offset + byteSize > this.byteSize) {
      throw fail(
        'SHM_BAD_SLICE',
        `Invalid offset + byte size for shared memory region: '${this.name}'`,
      );
    }
  }

  /** Fills `target` from the window at `offset`. A region shrunk under it is SHM_TRUNCATED. */
  read(offset: number, target: Uint8Array): void {
    const at = this.#position(offset, target.byteLength);
    let done = 0;
    while (done < target.byteLength) {
      const n = readSync(this.#fd, target, done, target.byteLength - done, at + done);
      if (n === 0) throw this.#truncated(at + target.byteLength);
      done += n;
    }
  }

  /**
   * Writes `bytes` into the window at `offset`. A region shrunk before or during the write fails
   * with SHM_TRUNCATED (region-write.ts).
   */
  write(offset: number, bytes: Uint8Array): void {
    writeIntoRegion(this.writeTarget('', offset, bytes.byteLength), bytes);
  }

  /**
   * Where `output`'s `byteSize` bytes at `offset` go, as plain data another thread can write with
   * (region-write.ts), after the same checks as `write`. Valid while this region is held.
   */
  writeTarget(output: string, offset: number, byteSize: number): RegionWrite {
    const position = this.#position(offset, byteSize);
    return { output, region: this.name, key: this.key, fd: this.#fd, position, byteSize };
  }

  /** The file position of `offset`, after checking the window and the file's current size. */
  #position(offset: number, byteSize: number): number {
    if (this.#fd < 0) {
      throw fail('SHM_NOT_FOUND', `Unable to find shared memory region: '${this.name}'`);
    }
    this.checkSlice(offset, byteSize);
    const end = this.offset + offset + byteSize;
    if (fstatSync(this.#fd).size < end) throw this.#truncated(end);
    return this.offset + offset;
  }

  #truncated(end: number) {
    return truncated(this.name, this.key, end);
  }
}
