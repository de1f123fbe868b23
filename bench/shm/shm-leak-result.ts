// What the shared-memory leak check records (bench/results/shm-leak-<protocol>.json): one run of N
// register -> infer -> unregister cycles over one protocol, with the server's RSS and open fd count
// sampled every `every` cycles.

import type { MachineInfo } from '../measure/machine-info.js';

export const SHM_LEAK_SCHEMA = 'infernode-bench-shm-leak/1';

export type LeakProtocol = 'http' | 'ws' | 'grpc';

export interface LeakSample {
  readonly cycle: number;
  readonly rssBytes: number;
  /** VmHWM: the largest resident set the server has had so far. */
  readonly peakRssBytes: number;
  readonly fds: number;
}

export interface ShmLeakResult {
  readonly schema: typeof SHM_LEAK_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly protocol: LeakProtocol;
  readonly cycles: number;
  readonly every: number;
  readonly samples: readonly LeakSample[];
}
