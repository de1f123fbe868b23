// The result file of the streams bench (bench/results/sequence-streams.json): per served config
// and for the naive loop, every probe of the stream-count search and the count sustained, plus
// the model's compute time alone per batch size.

import type { MachineInfo } from '../measure/machine-info.js';
import type { ServerBreakdown } from '../measure/server-stats.js';
import type { ComputeRow } from './stream-messages.js';
import type { LatencySummary } from './stream-pacer.js';

export const STREAMS_SCHEMA = 'infernode.sequence-streams/1';

export interface StreamProbe {
  readonly streams: number;
  readonly passed: boolean;
  readonly latency: LatencySummary;
  /** Steps answered per second in the window; real time is streams x 31.25. */
  readonly stepsPerSecond: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** Cores the server used over the probe (null for the naive loop, which has no server). */
  readonly serverCores: number | null;
  /** Cores the load process used (for the naive loop: the loop and its model). */
  readonly loadCores: number;
  /** Cores every other process on the machine used over the probe (it is shared); null: unknown. */
  readonly otherCores: number | null;
  /** 1, or more when a failed probe was measured again because other processes were busy. */
  readonly attempt: number;
  /** The server's statistics over the probe (warm-up and closing steps included). */
  readonly server: ServerBreakdown | null;
}

export interface StreamSearch {
  /** `naive`, or the served config's id (e.g. `oldest`, `direct`, `oldest-delay0`). */
  readonly id: string;
  readonly label: string;
  /** The served model's config.pbtxt as the server read it; null for the naive loop. */
  readonly config: string | null;
  readonly sustained: number;
  readonly probes: readonly StreamProbe[];
}

export interface StreamsResult {
  readonly schema: typeof STREAMS_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly periodMs: number;
  readonly warmupMs: number;
  readonly measureMs: number;
  readonly connections: number;
  /** The pass rule: p99 below this and no failed step. */
  readonly p99LimitMs: number;
  readonly naive: StreamSearch;
  readonly served: readonly StreamSearch[];
  readonly compute: readonly ComputeRow[];
}
