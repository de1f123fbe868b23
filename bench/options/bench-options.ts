// The harness's options, parsed once from argv (see parse-flags.ts), frozen, and recorded whole in
// every result file so a run can be reproduced from its JSON.

import type { LoadRange } from './load-range.js';
import type { SequenceOptions } from './sequence-options.js';

export type Protocol = 'http' | 'ws' | 'grpc';
export type RequestDistribution = 'constant' | 'poisson';
export type InputDataSource =
  | { readonly kind: 'zero' }
  | { readonly kind: 'random' }
  | { readonly kind: 'file'; readonly path: string };

/** Which load the sweep applies: N outstanding requests, or a request rate (open loop). */
export type SweepMode =
  | { readonly kind: 'concurrency'; readonly range: LoadRange }
  | {
      readonly kind: 'request-rate';
      readonly range: LoadRange;
      readonly distribution: RequestDistribution;
    };

/**
 * The comparators of `bench:compare`, in the order they run: raw ORT, naive Fastify (ORT's default
 * thread pools, and again with one intra-op and one inter-op thread), the uWS
 * front end's ceiling (read + JSON.parse, fixed reply, no inference), infernode with the model's
 * dynamic_batching removed, infernode as configured (HTTP JSON), and infernode again over HTTP
 * with the binary tensor extension, over the WebSocket protocol with msgpack frames, and over gRPC
 * (unary ModelInfer, and ModelStreamInfer with many requests in flight per stream).
 */
export const COMPARE_TARGETS = [
  'raw-ort',
  'naive-fastify',
  'naive-fastify-1t',
  'uws-ceiling',
  'infernode-unbatched',
  'infernode',
  'infernode-binary',
  'infernode-ws',
  'infernode-grpc',
  'infernode-grpc-stream',
] as const;
export type CompareTarget = (typeof COMPARE_TARGETS)[number];

/** `--targets protocols`: infernode over each of its transports (issues 5 and 10's comparison). */
export const PROTOCOL_TARGETS: readonly CompareTarget[] = [
  'infernode',
  'infernode-binary',
  'infernode-ws',
  'infernode-grpc',
  'infernode-grpc-stream',
];

/** The targets a thread sweep can run: infernode over each transport (`--thread-sweep`). */
export const THREAD_SWEEP_TARGETS: readonly CompareTarget[] = PROTOCOL_TARGETS;

/** What runs without --targets (`--targets all` runs every comparator). */
export const DEFAULT_COMPARE_TARGETS: readonly CompareTarget[] = [
  'raw-ort',
  'naive-fastify',
  'infernode',
];

export interface BenchOptions {
  readonly model: string;
  /** '' = the server's default (latest) version. */
  readonly modelVersion: string;
  /** host:port of an already running server (`bench` without --serve): its gRPC port with -i grpc. */
  readonly url: string;
  readonly protocol: Protocol;
  /** -i grpc: ModelStreamInfer (many requests in flight per stream) instead of unary ModelInfer. */
  readonly streaming: boolean;
  readonly batchSize: number;
  readonly sweep: SweepMode;
  readonly measurementIntervalMs: number;
  /** -1: stabilize on (and report first) the average latency, as perf_analyzer does. */
  readonly percentile: number;
  readonly stabilityPercentage: number;
  readonly maxTrials: number;
  /** 0 = none. Stops the sweep once a level's latency (avg or --percentile) exceeds it. */
  readonly latencyThresholdMs: number;
  /** --shape name:d1,d2 (dims without the batch dimension). */
  readonly shapes: Readonly<Record<string, readonly number[]>>;
  readonly inputData: InputDataSource;
  readonly stringLength: number;
  /** Binary tensor extension for inputs and outputs (otherwise KServe JSON). */
  readonly binary: boolean;
  /**
   * perf_analyzer's --shared-memory: 'system' writes the inputs once into /dev/shm regions
   * registered before the run and names them in every request; outputs go to a region.
   */
  readonly sharedMemory: 'none' | 'system';
  /** perf_analyzer's --output-shared-memory-size: bytes of each output's region (102400). */
  readonly outputSharedMemorySize: number;
  readonly csvFile: string;
  readonly jsonFile: string;
  readonly outDir: string;
  /** Load-generator worker threads inside the generator process. */
  readonly generatorThreads: number;
  /** Open loop: most connections the generator opens before requests wait client-side. */
  readonly maxConnections: number;
  /** -i ws: sockets per generator thread; 0 = one per 64 outstanding requests. */
  readonly wsConnections: number;
  readonly requestTimeoutMs: number;
  /**
   * -i grpc: the deadline every call declares (a `grpc-timeout` header), in ms; 0 = none. A
   * deadline is what tritonclient's `client_timeout` sends, and infernode serves such calls through
   * grpc-js rather than on the HTTP/2 stream directly: this measures that path.
   */
  readonly grpcClientTimeoutMs: number;
  readonly seed: number;
  /**
   * `bench --cache-hit-ratio`: the share of requests that repeat an input sent before (the rest
   * carry inputs never sent), for a server's response cache; null = every request as prebuilt.
   */
  readonly cacheHitRatio: number | null;
  /** `bench`: start infernode on a free port instead of using --url. */
  readonly serve: boolean;
  readonly modelRepository: string;
  /** Extra infernode flags (--server-arg, repeatable), for the spawned server. */
  readonly serverArgs: readonly string[];
  /**
   * --trace: spawned infernode runs with --trace-stages (added to `serverArgs`), and each level of
   * an infernode HTTP target records the server's per-stage timeline.
   */
  readonly trace: boolean;
  /** CPU accounting for an external server (`bench -u ... --server-pid N`); 0 = unknown. */
  readonly serverPid: number;
  /** `bench:compare`: which comparators run. */
  readonly targets: readonly CompareTarget[];
  /**
   * `bench:compare --thread-sweep`: infernode's `--http-thread-count` values, ascending, each
   * measured over every transport in `targets` against a fresh server ([] = no thread sweep).
   */
  readonly threadSweep: readonly number[];
  /**
   * With a thread sweep: also run the N-process reference (N servers with one thread each on N
   * ports, the load split over them) for every N >= 2 of the sweep.
   */
  readonly processReference: boolean;
  /** `bench:compare`: sessions (one per worker thread) for the raw ORT limit. */
  readonly rawThreads: number;
  /** perf_analyzer's sequence flags, used when the model has sequence_batching. */
  readonly sequence: SequenceOptions;
  /** `bench:compare`: copy the run to bench/results/latest.* and regenerate bench/RESULTS.md. */
  readonly publish: boolean;
}
