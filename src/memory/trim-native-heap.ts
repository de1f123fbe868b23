// Handing freed native memory back to the system: glibc's malloc_trim(0), called after a full GC
// has freed the buffers of clients that went (reclaim-after-large.ts).
//
// Why: a GC frees those buffers, but glibc keeps what it freed inside its heap arenas: memory in
// the middle of an arena returns to the system only through malloc_trim, which Node never calls.
// With the deployed mmap threshold (malloc-environment.ts) the tensor-sized blocks are mmapped and
// go back on free; what stays is the many small blocks (HTTP/2 frames, WebSocket chunks, per-stream
// state) that fragment the arenas. bench/hostile-clients.ts measures the difference (docs/
// operations.md, "Hostile clients").
//
// How: Node has no binding for it, so the call goes through koffi, a maintained FFI package that
// ships prebuilt binaries (no compiler at install). It is an optional dependency: where it or glibc
// is missing (musl, macOS), trimming does nothing and the server says so once at debug level.

import { createRequire } from 'node:module';

/** The FFI package (an optional dependency). */
export const FFI_PACKAGE = 'koffi';

interface Koffi {
  load(name: string): { func(signature: string): (pad: number) => number };
}

/** undefined: not tried yet; null: unavailable here. */
let trim: ((pad: number) => number) | null | undefined;
let unavailableReason: string | undefined;

function load(): ((pad: number) => number) | null {
  if (process.platform !== 'linux') {
    unavailableReason = `malloc_trim is glibc's; this is ${process.platform}`;
    return null;
  }
  try {
    const koffi = createRequire(import.meta.url)(FFI_PACKAGE) as Koffi;
    return koffi.load('libc.so.6').func('int malloc_trim(size_t)');
  } catch (e) {
    unavailableReason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    return null;
  }
}

/**
 * Returns freed native heap memory to the system (every arena, whichever thread calls it). True
 * when memory was released; false when there was none to release or trimming is unavailable.
 */
export function trimNativeHeap(): boolean {
  if (trim === undefined) trim = load();
  if (trim === null) return false;
  return trim(0) === 1;
}

/** Why trimming does nothing here, or undefined where it works (or was not tried yet). */
export function trimUnavailableReason(): string | undefined {
  if (trim === undefined) trim = load();
  return unavailableReason;
}
