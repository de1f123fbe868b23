// The result file: everything a run measured, with the machine, commit and full options, every
// window (with its HDR histogram, so any percentile can be recomputed), and each level's summary
// over its last stable windows. RESULTS.md, the CSV, the HTML and the PNG are all rendered from
// this and nothing else.

import type { BenchOptions } from '../options/bench-options.js';
import type { LatencySummary } from '../measure/latency-histogram.js';
import type { StageTable } from '../measure/stage-table.js';
import type { MachineInfo } from '../measure/machine-info.js';
import type { ServerBreakdown, ServerCounters } from '../measure/server-stats.js';

export const RESULT_SCHEMA = 'infernode-bench/1';

/** Raw CPU figures of a window, kept as times so windows merge exactly. */
export interface CpuTimes {
  readonly wallMs: number;
  /** The load generator's process (for raw-ORT targets: the process running the sessions). */
  readonly generatorMs: number;
  readonly generatorThreads: number;
  /** The server process (all its threads); null when unknown (external server, not Linux). */
  readonly serverMs: number | null;
  /** The whole machine, all processes; null when not Linux. */
  readonly machineMs: number | null;
}

/** Average cores in use: 1.0 = one core fully busy for the whole window. */
export interface CpuCores {
  readonly generator: number;
  readonly generatorPerThread: number;
  readonly server: number | null;
  readonly machine: number | null;
  /** Machine minus server minus generator: other processes competing for the cores. */
  readonly other: number | null;
}

export interface WindowResult {
  readonly index: number;
  readonly startMs: number;
  readonly durationMs: number;
  readonly requests: number;
  readonly inferences: number;
  readonly errors: number;
  readonly errorSample: string | null;
  readonly reqPerSec: number;
  readonly inferPerSec: number;
  readonly latency: LatencySummary;
  /** The latency the stability rule used (average, or --percentile). */
  readonly stabilityLatencyUs: number;
  readonly sendUsSum: number;
  readonly recvUsSum: number;
  readonly maxSendLagUs: number;
  readonly inFlight: number;
  readonly queued: number;
  readonly server: ServerCounters | null;
  readonly cpu: CpuTimes;
  /** HdrHistogram compressed base64 of this window's latencies, µs. */
  readonly histogram: string;
}

export interface LevelSummary {
  /** How many windows (the last ones) the summary covers: 3 when stable. */
  readonly windows: number;
  readonly durationMs: number;
  readonly requests: number;
  readonly inferences: number;
  readonly errors: number;
  readonly reqPerSec: number;
  readonly inferPerSec: number;
  readonly latency: LatencySummary;
  /** The --percentile value, when one was given. */
  readonly percentileUs: number | null;
  readonly stabilityLatencyUs: number;
  readonly avgSendUs: number;
  readonly avgRecvUs: number;
  readonly maxSendLagUs: number;
  readonly server: ServerBreakdown | null;
  readonly cpu: CpuCores;
  readonly histogram: string;
}

export type LoadMode = 'concurrency' | 'request-rate';

export interface LevelResult {
  readonly mode: LoadMode;
  /** Concurrency, or requests per second. */
  readonly value: number;
  readonly stable: boolean;
  /** 'stable', or why not after --max-trials windows. */
  readonly stability: string;
  readonly summary: LevelSummary;
  readonly windows: readonly WindowResult[];
  /** --trace: the server's per-stage timeline over this level's windows (infernode over HTTP). */
  readonly stages?: StageTable;
}

export type TargetKind =
  | 'infernode'
  | 'naive-fastify'
  | 'raw-ort'
  | 'raw-ort-limit'
  | 'server'
  /** A front end with no inference behind it (bench:compare's uws-ceiling). */
  | 'front-end-ceiling';

export interface TargetResult {
  /** Unique within a run: 'infernode', 'raw-ort', 'raw-ort-main', ... */
  readonly id: string;
  readonly kind: TargetKind;
  readonly label: string;
  readonly description: string;
  /** 'HTTP JSON', 'HTTP binary' or 'in-process'. */
  readonly transport: string;
  readonly notes: readonly string[];
  readonly levels: readonly LevelResult[];
  /** `bench:compare --thread-sweep`: how infernode was run for this target. */
  readonly scaling?: ServerScaling;
}

/** One row set of the thread sweep: one process with N threads, or N processes with one each. */
export interface ServerScaling {
  /** The --http-thread-count each process was started with. */
  readonly threads: number;
  readonly processes: number;
  /** The HTTP threads each process reported serving on (fewer when it could not run threads). */
  readonly servedThreads: readonly (number | null)[];
}

export interface ModelUnderTest {
  readonly name: string;
  readonly version: string;
  readonly maxBatchSize: number;
  readonly batchSize: number;
  readonly inputs: readonly {
    readonly name: string;
    readonly datatype: string;
    readonly shape: readonly number[];
  }[];
  /** Body size of each distinct request, bytes. */
  readonly requestBytes: readonly number[];
}

export interface BenchResult {
  readonly schema: typeof RESULT_SCHEMA;
  readonly kind: 'bench' | 'compare';
  /** The command line that produced this file, as typed (npm run ... or node dist/...). */
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  readonly options: BenchOptions;
  readonly model: ModelUnderTest;
  readonly targets: readonly TargetResult[];
}
