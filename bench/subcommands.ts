// The subcommands of `infernode-bench` (bench/cli.ts): name, one line on what each measures, and
// where its code is. Each module is imported only when its subcommand runs, so `run` does not load
// sharp or the OCR models, and `--help` of one subcommand loads one module.

import type { FlagTable, Refusals } from './options/flag-parser.js';

/** What a subcommand's module exports. */
export interface SubcommandModule {
  /** Every flag it takes, -h/--help included: parsing and its --help both read this table. */
  readonly flags: FlagTable;
  /** Flags refused with a reason instead of "unknown flag" (perf_analyzer's, for run/compare). */
  readonly refusals?: Refusals;
  /** What follows `--` on its command line, when it takes anything there. */
  readonly rest?: string;
  main(argv: readonly string[]): Promise<number>;
}

export interface Subcommand {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<SubcommandModule>;
}

const m = <T extends { command: SubcommandModule }>(p: Promise<T>): Promise<SubcommandModule> =>
  p.then((mod) => mod.command);

export const SUBCOMMANDS: readonly Subcommand[] = [
  {
    name: 'run',
    summary: "perf_analyzer's measurement of one KServe v2 server (--url, or --serve)",
    load: () => m(import('./run.js')),
  },
  {
    name: 'compare',
    summary: 'raw ORT, a naive Fastify server and infernode under one load; publishes',
    load: () => m(import('./compare.js')),
  },
  {
    name: 'render',
    summary: 're-render every published file from bench/results/ (no measurement)',
    load: () => m(import('./render-results.js')),
  },
  {
    name: 'cycles',
    summary: 'load/unload cycles of mlp: server RSS after each, per allocator; publishes',
    load: () => m(import('./model-cycles.js')),
  },
  {
    name: 'reload',
    summary: 'mlp reloaded under closed-loop load: failures and latency per phase; publishes',
    load: () => m(import('./reload-under-load.js')),
  },
  {
    name: 'soak',
    summary: 'a mixed load of good, bad and cancelled requests: RSS over time; publishes',
    load: () => m(import('./soak.js')),
  },
  {
    name: 'large',
    summary: 'one large request per fresh server: peak and settled RSS by size; publishes',
    load: () => m(import('./large-request.js')),
  },
  {
    name: 'shm',
    summary:
      'HTTP binary, gRPC and shared memory: p50/p99 and server RSS growth by size; publishes',
    load: () => m(import('./shm-compare.js')),
  },
  {
    name: 'ocr',
    summary: 'the OCR pipeline: images/s and latency per concurrency and set-up; publishes',
    load: () => m(import('./ocr.js')),
  },
  {
    name: 'gpu-soak',
    summary: 'WebGPU mlp instances under load while a second model cycles; pass/fail',
    load: () => m(import('./gpu-soak.js')),
  },
  {
    name: 'gpu-timing',
    summary: 'raw ONNX Runtime timings, CPU provider against WebGPU, no server',
    load: () => m(import('./gpu-ort-timing.js')),
  },
  {
    name: 'streams',
    summary: 'concurrent 16 kHz audio streams sustained per sequence-batcher config; publishes',
    load: () => m(import('./sequence-streams.js')),
  },
  {
    name: 'rolling',
    summary: 'rolling restart of three replicas behind HAProxy or nginx',
    load: () => m(import('./rolling-restart.js')),
  },
  {
    name: 'ensemble',
    summary: 'the sentiment ensemble against its three steps sent by the client; publishes',
    load: () => m(import('./ensemble-overhead.js')),
  },
  {
    name: 'shadow',
    summary: 'mlp at 64 in flight with 10 % shadowed against none: p50/p99; publishes',
    load: () => m(import('./shadow-overhead.js')),
  },
  {
    name: 'ab',
    summary: 'this build against an older dist/, default flags, ABBA rounds: server CPU µs/req',
    load: () => m(import('./per-request-ab.js')),
  },
  {
    name: 'cache',
    summary: 'mlp at 0/50/90 % repeated inputs, uncached and cached: req/s, p50, p99; publishes',
    load: () => m(import('./cache-compare.js')),
  },
  {
    name: 'hostile-probes',
    summary: "issue 33's defects 3, 4 and 7 probed on fresh servers; prints JSON lines",
    load: () => m(import('./hostile-probes.js')),
  },
  {
    name: 'hostile-clients',
    summary: 'never-reading gRPC streams and WebSockets: RSS and client-memory gauge',
    load: () => m(import('./hostile-clients.js')),
  },
  {
    name: 'hostile-lists',
    summary: 'oversized tensor lists: time to refuse, liveness meanwhile; prints JSON lines',
    load: () => m(import('./hostile-lists.js')),
  },
  {
    name: 'noisy-neighbour',
    summary: 'tenant B beside tenant A at 10× its quota, quotas off and on; publishes',
    load: () => m(import('./noisy-neighbour.js')),
  },
  {
    name: 'grpc-codec',
    summary: 'the ModelInfer codec, hand-written against protobufjs generated code; no server',
    load: () => m(import('./grpc-codec.js')),
  },
];
