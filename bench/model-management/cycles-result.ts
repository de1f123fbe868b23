// The result file of the load/unload memory bench (bench/results/model-cycles.json): per
// allocator, the server's memory and threads after every cycle, and the fitted growth per cycle.

import type { LinearFit } from '../measure/linear-fit.js';
import type { MachineInfo } from '../measure/machine-info.js';
import type { AllocatorId } from './allocators.js';

export const CYCLES_SCHEMA = 'infernode-model-cycles/1';

export interface CycleSample {
  /** 1-based. */
  readonly cycle: number;
  /** After the load and the cycle's inferences, with the model serving. */
  readonly loadedRssBytes: number;
  readonly loadedThreads: number;
  /** After the unload answered: the model's workers have exited. */
  readonly rssBytes: number;
  readonly threads: number;
  readonly loadMs: number;
  readonly unloadMs: number;
}

export interface CycleCurve {
  readonly allocator: AllocatorId;
  readonly label: string;
  /** What the server's environment added. */
  readonly env: Readonly<Record<string, string>>;
  /** The preloaded library was seen in the server's /proc/<pid>/maps (true when none is preloaded). */
  readonly preloadVerified: boolean;
  /** The server started, `mlp` not loaded yet. */
  readonly baselineRssBytes: number;
  readonly baselineThreads: number;
  readonly samples: readonly CycleSample[];
  /** Least squares of the after-unload RSS (bytes) on the cycle, over cycles fitFrom..cycles. */
  readonly fit: LinearFit;
  readonly peakRssBytes: number;
  readonly durationMs: number;
}

export interface CyclesResult {
  readonly schema: typeof CYCLES_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly cycles: number;
  readonly inferencesPerCycle: number;
  /** The first cycle of the fit: earlier ones are warm-up (allocator pools, V8 heap growth). */
  readonly fitFrom: number;
  readonly serverArgs: readonly string[];
  readonly curves: readonly CycleCurve[];
}
