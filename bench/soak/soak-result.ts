// What the soak bench records (bench/results/soak.json): the server's RSS and the cumulative
// request counts every sample interval, counts by scenario and outcome, and the growth of RSS from
// the end of the warm-up to the end of the run.

import type { MachineInfo } from '../measure/machine-info.js';
import type { Kind, Outcome } from './soak-scenarios.js';

export const SOAK_SCHEMA = 'infernode-bench-soak/1';

export interface SoakSample {
  /** Seconds since the load started. */
  readonly t: number;
  readonly rssBytes: number;
  /** Cumulative counts by outcome at this instant. */
  readonly counts: Readonly<Record<Outcome, number>>;
}

export interface ScenarioCount {
  readonly name: string;
  readonly kind: Kind;
  readonly counts: Readonly<Record<Outcome, number>>;
  /** The first unexpected answer, when there was one. */
  readonly errorSample: string | null;
}

export interface SoakResult {
  readonly schema: typeof SOAK_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly serverArgs: readonly string[];
  readonly frontEnd: string | null;
  readonly lanes: number;
  readonly durationSecs: number;
  readonly warmupSecs: number;
  readonly samples: readonly SoakSample[];
  readonly scenarios: readonly ScenarioCount[];
  /** RSS at the first sample at or after the warm-up, and at the last sample. */
  readonly rssAfterWarmupBytes: number;
  readonly rssEndBytes: number;
  readonly growthPercent: number;
  /** Whether the server still answered /v2/health/ready after the load stopped. */
  readonly readyAtEnd: boolean;
}
