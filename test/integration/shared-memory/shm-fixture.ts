// Real POSIX shared-memory files for the shared-memory tests: created under /dev/shm with a name
// unique to the test process, removed when the test ends.

import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SHM_DIR = '/dev/shm';

export class ShmFiles {
  readonly #made: string[] = [];
  readonly #prefix = `infernode-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  /** A region file of `bytes` (or `size` zero bytes); returns its key ('/name'). */
  create(tag: string, content: Uint8Array | number): string {
    const name = `${this.#prefix}-${tag}`;
    const file = path.join(SHM_DIR, name);
    writeFileSync(file, typeof content === 'number' ? new Uint8Array(content) : content);
    this.#made.push(file);
    return `/${name}`;
  }

  /** A symlink in /dev/shm pointing at `target`; returns its key. */
  symlink(tag: string, target: string): string {
    const name = `${this.#prefix}-${tag}`;
    const file = path.join(SHM_DIR, name);
    symlinkSync(target, file);
    this.#made.push(file);
    return `/${name}`;
  }

  file(key: string): string {
    return path.join(SHM_DIR, key.replace(/^\//, ''));
  }

  read(key: string): Buffer {
    return readFileSync(this.file(key));
  }

  write(key: string, bytes: Uint8Array): void {
    writeFileSync(this.file(key), bytes);
  }

  removeAll(): void {
    for (const f of this.#made.splice(0)) rmSync(f, { force: true });
  }
}

/** The files the process has open under /dev/shm (its /proc/self/fd links). */
export function openShmFds(pid: number | 'self' = 'self'): string[] {
  const dir = `/proc/${pid}/fd`;
  const out: string[] = [];
  for (const fd of readdirSync(dir)) {
    try {
      const target = readlinkOrEmpty(path.join(dir, fd));
      if (target.startsWith(`${SHM_DIR}/`)) out.push(target);
    } catch {
      // closed while listing
    }
  }
  return out;
}

/** Every open fd of the process. */
export function fdCount(pid: number | 'self' = 'self'): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

import { readlinkSync } from 'node:fs';
function readlinkOrEmpty(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return '';
  }
}
