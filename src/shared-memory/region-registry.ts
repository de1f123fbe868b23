// The process's system shared-memory registrations (Triton's SharedMemoryManager, system memory
// only): register, unregister, status, and `acquire` for a request that names a region. Owned by
// the main thread, where requests are validated; front-end threads reach it through the data plane.
// Registered names are unique (a second registration is refused, never an overwrite); the number of
// registrations and the bytes they span are capped (--client-shm-max-regions, --client-shm-max-bytes).

import { fstatSync, closeSync } from 'node:fs';
import { fail } from '../errors.js';
import { checkRegisterKey, openShmKey, printable, SHM_DIR } from './shm-key.js';
import { ShmRegion, type RegionStatus } from './shm-region.js';

export interface RegistryLimits {
  /** Registrations at once. */
  readonly maxRegions: number;
  /** Sum of the registered byte sizes. */
  readonly maxBytes: number;
}

export const DEFAULT_REGISTRY_LIMITS: RegistryLimits = Object.freeze({
  maxRegions: 1024,
  maxBytes: 16 * 1024 * 1024 * 1024,
});

export interface RegistryOptions {
  readonly limits?: RegistryLimits;
  /** The directory keys resolve in: /dev/shm, unless a platform has none (tests only). */
  readonly dir?: string;
}

export class RegionRegistry {
  readonly #regions = new Map<string, ShmRegion>();
  /** Unregistered while a request held them; dropped when the last one is answered. */
  readonly #awaitingUnregister = new Set<ShmRegion>();
  readonly #limits: RegistryLimits;
  readonly #dir: string;
  #bytes = 0;
  #closed = false;

  constructor(options: RegistryOptions = {}) {
    this.#limits = options.limits ?? DEFAULT_REGISTRY_LIMITS;
    this.#dir = options.dir ?? SHM_DIR;
  }

  /** Registrations now. */
  get size(): number {
    return this.#regions.size;
  }

  register(name: string, key: string, offset: number, byteSize: number): void {
    if (this.#closed) throw fail('SHUTTING_DOWN', 'the server is shutting down');
    checkRegisterKey(name, key);
    if (this.#regions.has(name)) {
      throw fail(
        'SHM_ALREADY_REGISTERED',
        `shared memory region '${printable(name)}' already in manager`,
      );
    }
    if (this.#regions.size >= this.#limits.maxRegions) {
      throw fail(
        'SHM_LIMIT',
        `failed to register shared memory region '${printable(name)}': ${this.#regions.size} ` +
          `regions are registered, the most --client-shm-max-regions allows`,
      );
    }
    if (this.#bytes + byteSize > this.#limits.maxBytes) {
      throw fail(
        'SHM_LIMIT',
        `failed to register shared memory region '${printable(name)}': ${byteSize} bytes more ` +
          `than the ${this.#bytes} registered exceeds --client-shm-max-bytes ${this.#limits.maxBytes}`,
      );
    }
    const fd = openShmKey(key, this.#dir);
    try {
      // Triton's check and wording (CheckSharedMemoryRegionSize).
      if (offset + byteSize > fstatSync(fd).size) {
        throw fail(
          'SHM_BAD_SLICE',
          `failed to register shared memory region '${printable(name)}': invalid args`,
        );
      }
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    this.#regions.set(name, new ShmRegion(name, key, offset, byteSize, fd));
    this.#bytes += byteSize;
  }

  /**
   * Removes the registration. A region some request holds is only marked, and removed when the
   * last such request is answered (`release`): until then it is still listed by `status`, still
   * usable by new requests and its name still taken, as in Triton (UnregisterHelper's
   * awaiting_unregister_; qa/L0_shared_memory TestSharedMemoryUnregister). An unknown name is no
   * error.
   */
  unregister(name: string): void {
    const region = this.#regions.get(name);
    if (region === undefined) return;
    if (region.inUse) this.#awaitingUnregister.add(region);
    else this.#drop(region);
  }

  /** A request is answered: drops its reference, and the registration if unregister awaited it. */
  release(region: ShmRegion): void {
    region.release();
    if (!region.inUse && this.#awaitingUnregister.has(region)) this.#drop(region);
  }

  #drop(region: ShmRegion): void {
    this.#awaitingUnregister.delete(region);
    if (this.#regions.get(region.name) !== region) return;
    this.#regions.delete(region.name);
    this.#bytes -= region.byteSize;
    region.release();
  }

  unregisterAll(): void {
    for (const name of [...this.#regions.keys()]) this.unregister(name);
  }

  /** Every registration, or the one named (SHM_NOT_FOUND if none), in Triton's status shape. */
  status(name?: string): RegionStatus[] {
    if (name === undefined || name === '')
      return [...this.#regions.values()].map((r) => r.status());
    const region = this.#regions.get(name);
    if (region === undefined) {
      throw fail(
        'SHM_NOT_FOUND',
        `Unable to find system shared memory region: '${printable(name)}'`,
      );
    }
    return [region.status()];
  }

  /**
   * The region `name`, with `byteSize` bytes at `offset` checked inside its window; the caller owns
   * one reference and must `release` it once the request is answered.
   */
  acquire(name: string, offset: number, byteSize: number): ShmRegion {
    const region = this.#regions.get(name);
    if (region === undefined) {
      throw fail('SHM_NOT_FOUND', `Unable to find shared memory region: '${printable(name)}'`);
    }
    region.checkSlice(offset, byteSize);
    region.retain();
    return region;
  }

  /**
   * The server stops: every registration is dropped now, in use or not (a request still holding
   * one keeps its fd until answered), and no new one is taken.
   */
  close(): void {
    this.#closed = true;
    for (const region of [...this.#regions.values()]) this.#drop(region);
  }
}
