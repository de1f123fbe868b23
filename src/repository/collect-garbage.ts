// A full garbage collection after a model version's workers have exited. The bench
// (bench/model-cycles.ts) found that RSS grows ~0.5 MiB per load/unload cycle with glibc and
// stays flat when a full GC runs after each unload: what grows is collectable garbage that V8's
// heuristics leave alone on an otherwise idle main thread, not a leak. Unloads and reloads are
// rare, and the pause is milliseconds on this process's small heap, so the manager asks for one.

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
