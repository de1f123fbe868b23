// The result file of the reload-under-load bench (bench/results/reload-under-load.json): the
// clients' latencies in steady state, during back-to-back reloads and in steady state again, and
// how long each reload took.

import type { LatencySummary } from '../measure/latency-histogram.js';
import type { MachineInfo } from '../measure/machine-info.js';
import type { IndexModel } from './repository-rpc.js';

export const RELOAD_SCHEMA = 'infernode-reload-under-load/1';

export type PhaseId = 'steady' | 'reloads' | 'steady-after';

export interface PhaseResult {
  readonly id: PhaseId;
  readonly durationMs: number;
  /** Requests answered with a 200. */
  readonly requests: number;
  /** Requests answered otherwise, or not at all. */
  readonly failures: number;
  readonly errorSample: string | null;
  readonly reqPerSec: number;
  readonly latency: LatencySummary;
  /** The phase's latencies, µs, HdrHistogram compressed base64. */
  readonly histogram: string;
  /** Average cores the server used, and the whole machine (every process); null off Linux. */
  readonly serverCores: number | null;
  readonly machineCores: number | null;
}

export interface ReloadRecord {
  /** 1-based. */
  readonly reload: number;
  /** instance_group count in the config this reload loaded. */
  readonly instances: number;
  /** This reload also brought a new version directory in. */
  readonly newVersion: boolean;
  /** From the RepositoryModelLoad call to its answer: the new versions serve. */
  readonly durationMs: number;
}

export interface ReloadResult {
  readonly schema: typeof RELOAD_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly clients: number;
  readonly serverArgs: readonly string[];
  readonly phases: readonly PhaseResult[];
  readonly reloads: readonly ReloadRecord[];
  /** The server's "model switched to its new versions" log records: reloads that changed something. */
  readonly switches: number;
  /** The repository index at the end. */
  readonly finalIndex: readonly IndexModel[];
}
