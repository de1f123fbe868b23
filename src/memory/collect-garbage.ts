// A full garbage collection on demand, for the thread that calls it (the main thread, or a model
// worker: each has its own V8 heap). Two callers. The model manager, after a model version's workers
// have exited: the bench (bench/model-cycles.ts) found that RSS grows ~0.5 MiB per load/unload
// cycle with glibc and stays flat when a full GC runs after each unload; what grows is collectable
// garbage that V8's heuristics leave alone on an otherwise idle main thread, not a leak. And
// reclaim-after-large.ts, after a large request: its buffers are external memory that V8 frees
// only when a major GC finds them unreferenced, which an idle process may not run for minutes.
// `--expose-gc` is not on the command line, so the flag is set at run time.

import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined | null = null;

/** Runs a full GC; does nothing where V8 will not expose one. */
export function collectGarbage(): void {
  if (gc === null) {
    try {
      // `--expose-gc` set at run time takes effect in contexts created afterwards.
      v8.setFlagsFromString('--expose-gc');
      const fn: unknown = vm.runInNewContext('gc');
      gc = typeof fn === 'function' ? (fn as () => void) : undefined;
    } catch {
      gc = undefined;
    }
  }
  gc?.();
}
