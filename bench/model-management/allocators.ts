// The memory set-ups the load/unload bench can run the server with: glibc's malloc (what `node`
// uses unless told otherwise), jemalloc or tcmalloc through LD_PRELOAD (Triton's advice against
// memory that grows over load/unload cycles), glibc capped at two arenas (MALLOC_ARENA_MAX=2, the
// tunable that bounds the per-thread arenas worker threads create), and glibc with a full V8
// garbage collection forced after every unload (through the inspector): not a set-up to deploy,
// but the measurement that tells uncollected garbage from memory the server keeps.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../options/usage-error.js';

export const ALLOCATOR_IDS = [
  'glibc',
  'jemalloc',
  'tcmalloc',
  'glibc-arenas-2',
  'glibc-gc',
] as const;
export type AllocatorId = (typeof ALLOCATOR_IDS)[number];

export interface Allocator {
  readonly id: AllocatorId;
  readonly label: string;
  /** What the server's environment adds (LD_PRELOAD, MALLOC_ARENA_MAX). */
  readonly env: Readonly<Record<string, string>>;
  /** File-name prefix of the preloaded library, checked in /proc/<pid>/maps; null for none. */
  readonly mapped: string | null;
  /** The server runs with its inspector on, and the bench forces a full GC after each unload. */
  readonly gcAfterUnload: boolean;
}

/** Debian's package for each preloaded library, for the error that says how to get it. */
const PRELOADS: Partial<Record<AllocatorId, { file: string; pkg: string; label: string }>> = {
  jemalloc: { file: 'libjemalloc.so.2', pkg: 'libjemalloc2', label: 'jemalloc (LD_PRELOAD)' },
  tcmalloc: {
    file: 'libtcmalloc_minimal.so.4',
    pkg: 'libtcmalloc-minimal4',
    label: 'tcmalloc (LD_PRELOAD)',
  },
};

function libraryDirs(): string[] {
  const multiarch = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
  return [`/usr/lib/${multiarch}`, `/lib/${multiarch}`, '/usr/lib64', '/usr/lib', '/usr/local/lib'];
}

export function parseAllocators(list: string): AllocatorId[] {
  const ids = list.split(',').filter((s) => s !== '');
  for (const id of ids) {
    if (!(ALLOCATOR_IDS as readonly string[]).includes(id)) {
      throw new UsageError(`unknown allocator "${id}": expected ${ALLOCATOR_IDS.join(', ')}`);
    }
  }
  if (ids.length === 0) throw new UsageError('--allocators needs at least one allocator');
  return [...new Set(ids)] as AllocatorId[];
}

/** The allocator's environment, with the preloaded library found on this machine. */
export function resolveAllocator(id: AllocatorId): Allocator {
  if (id === 'glibc')
    return { id, label: 'glibc malloc', env: {}, mapped: null, gcAfterUnload: false };
  if (id === 'glibc-arenas-2') {
    return {
      id,
      label: 'glibc, MALLOC_ARENA_MAX=2',
      env: { MALLOC_ARENA_MAX: '2' },
      mapped: null,
      gcAfterUnload: false,
    };
  }
  if (id === 'glibc-gc') {
    const inherited = process.env.NODE_OPTIONS ?? '';
    return {
      id,
      label: 'glibc, full GC after each unload',
      // Port 0: the OS picks one; Node prints the URL on stderr. Loopback only.
      env: { NODE_OPTIONS: `${inherited} --inspect=127.0.0.1:0`.trim() },
      mapped: null,
      gcAfterUnload: true,
    };
  }
  const preload = PRELOADS[id];
  if (preload === undefined) throw new Error(`no library for allocator ${id}`);
  const file = libraryDirs()
    .map((d) => path.join(d, preload.file))
    .find((f) => existsSync(f));
  if (file === undefined) {
    throw new UsageError(
      `${preload.file} not found (Debian and Ubuntu: apt-get install ${preload.pkg})`,
    );
  }
  return {
    id,
    label: preload.label,
    env: { LD_PRELOAD: file },
    mapped: preload.file.replace(/\.so.*$/, ''),
    gcAfterUnload: false,
  };
}
