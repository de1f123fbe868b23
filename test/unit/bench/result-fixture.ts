// A small, hand-built comparison result for the renderer tests: three targets over two levels,
// with windows made from real histograms so every figure is computed, not typed.

import {
  encodeHistogram,
  newHistogram,
  recordUs,
} from '../../../bench/measure/latency-histogram.js';
import type { ServerCounters } from '../../../bench/measure/server-stats.js';
import { parseBenchFlags } from '../../../bench/options/parse-flags.js';
import type {
  BenchResult,
  LevelResult,
  TargetResult,
  WindowResult,
} from '../../../bench/report/result-types.js';
import { RESULT_SCHEMA } from '../../../bench/report/result-types.js';
import { buildWindow, summarizeLevel } from '../../../bench/sweep/window-math.js';

export function counters(
  requests: number,
  queueUsEach: number,
  inferUsEach: number,
  batch = 1,
): ServerCounters {
  return {
    successCount: requests,
    successNs: requests * (queueUsEach + inferUsEach + 30) * 1000,
    queueCount: requests,
    queueNs: requests * queueUsEach * 1000,
    computeInputCount: requests,
    computeInputNs: requests * 10_000,
    computeInferCount: requests,
    computeInferNs: requests * inferUsEach * 1000,
    computeOutputCount: requests,
    computeOutputNs: requests * 10_000,
    failCount: 0,
    inferenceCount: requests,
    executionCount: Math.ceil(requests / batch),
    cacheHitCount: 0,
    cacheHitNs: 0,
    cacheMissCount: 0,
    cacheMissNs: 0,
  };
}

/** One 1-second window of `requests` requests, latencies spread evenly over [lo, hi] µs. */
export function window(
  index: number,
  requests: number,
  lo: number,
  hi: number,
  server: ServerCounters | null,
): WindowResult {
  const h = newHistogram();
  for (let i = 0; i < requests; i += 1)
    recordUs(h, lo + ((hi - lo) * i) / Math.max(1, requests - 1));
  return buildWindow({
    index,
    generator: {
      startMs: 1_000_000 + index * 1000,
      endMs: 1_000_000 + (index + 1) * 1000,
      completed: requests,
      errors: 0,
      histogram: encodeHistogram(h),
      sendUsSum: requests * 10,
      recvUsSum: requests * 20,
      maxLagUs: 0,
      inFlight: 1,
      queued: 0,
      errorSample: null,
      threads: 1,
      cpuMs: 100,
    },
    server,
    cpu: {
      wallMs: 1000,
      generatorMs: 100,
      generatorThreads: 1,
      serverMs: server === null ? null : 900,
      machineMs: server === null ? 150 : 1050,
    },
    batchSize: 1,
    percentile: -1,
  });
}

function level(
  value: number,
  requests: number,
  lo: number,
  hi: number,
  withServer: boolean,
): LevelResult {
  const windows = [0, 1, 2].map((i) =>
    window(i, requests, lo, hi, withServer ? counters(requests, 100, lo / 2) : null),
  );
  return {
    mode: 'concurrency',
    value,
    stable: true,
    stability: 'stable',
    windows,
    summary: summarizeLevel(windows, 1, -1),
  };
}

function target(
  id: string,
  kind: TargetResult['kind'],
  label: string,
  levels: LevelResult[],
): TargetResult {
  return {
    id,
    kind,
    label,
    description: `${label} description`,
    transport: kind.startsWith('raw') ? 'in-process' : 'HTTP JSON',
    notes: [],
    levels,
  };
}

export function comparisonFixture(): BenchResult {
  const { options } = parseBenchFlags(
    ['-m', 'mlp', '--concurrency-range', '1:8:x8', '--no-publish'],
    'compare',
  );
  return {
    schema: RESULT_SCHEMA,
    kind: 'compare',
    command: 'npm run bench:compare -- -m mlp --concurrency-range 1:8:x8',
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:14:05.000Z',
    machine: {
      cpuModel: 'Test CPU',
      cpus: 2,
      memoryBytes: 8 * 1024 ** 3,
      os: 'Linux 6.0',
      arch: 'x64',
      node: 'v20.0.0',
      onnxruntimeNode: '1.30.0',
      infernode: '0.1.0',
      commit: '0123456789abcdef0123',
      dirty: false,
    },
    options,
    model: {
      name: 'mlp',
      version: '1',
      maxBatchSize: 128,
      batchSize: 1,
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784] }],
      requestBytes: [15000],
    },
    targets: [
      target('raw-ort', 'raw-ort', 'raw ORT', [
        level(1, 4000, 200, 300, false),
        level(8, 8000, 800, 1200, false),
      ]),
      target('raw-ort-main', 'raw-ort-limit', 'raw ORT, 1 session on the main thread', [
        level(1, 4100, 190, 290, false),
      ]),
      target('raw-ort-threads', 'raw-ort-limit', 'raw ORT, 2 threads', [
        level(2, 8200, 200, 320, false),
      ]),
      target('naive-fastify', 'naive-fastify', 'naive Fastify', [
        level(1, 500, 1500, 3000, false),
        level(8, 600, 10_000, 30_000, false),
      ]),
      target('infernode', 'infernode', 'infernode', [
        level(1, 400, 2000, 4000, true),
        level(8, 900, 8000, 20_000, true),
      ]),
    ],
  };
}

/** infernode over one transport, at concurrency 1 and 64 with these req/s. */
function transport(id: string, label: string, wire: string, r1: number, r64: number) {
  return {
    ...target(id, 'infernode', label, [
      level(1, r1, 500, 1500, true),
      level(64, r64, 20_000, 60_000, true),
    ]),
    transport: wire,
  };
}

/** A transports comparison on `simple`: infernode over HTTP JSON, HTTP binary and WebSocket. */
export function protocolFixture(): BenchResult {
  const base = comparisonFixture();
  const { options } = parseBenchFlags(
    ['-m', 'simple', '--concurrency-range', '1:64:x64', '--targets', 'protocols', '--no-publish'],
    'compare',
  );
  return {
    ...base,
    command: 'npm run bench:compare -- -m simple --concurrency-range 1:64:x64 --targets protocols',
    options,
    model: { ...base.model, name: 'simple', inputs: [], requestBytes: [300] },
    targets: [
      transport('infernode', 'infernode', 'HTTP JSON', 1000, 2000),
      transport('infernode-binary', 'infernode HTTP binary', 'HTTP binary', 1100, 2600),
      transport('infernode-ws', 'infernode WebSocket', 'WebSocket msgpack', 1200, 3200),
    ],
  };
}

/**
 * The same with gRPC unary and stream too (issue 10's comparison): unary above HTTP binary at
 * concurrency 1 and below it at 64; the stream above 90 % of the WebSocket at 1 only.
 */
export function grpcProtocolFixture(): BenchResult {
  const base = protocolFixture();
  return {
    ...base,
    targets: [
      ...base.targets,
      transport('infernode-grpc', 'infernode gRPC unary', 'gRPC unary', 1150, 2500),
      transport('infernode-grpc-stream', 'infernode gRPC stream', 'gRPC stream', 1100, 2400),
    ],
  };
}

/**
 * A per-request overhead comparison on `mlp`: the one-thread naive server, the uWS ceiling and
 * infernode at concurrency 1 and 64 (infernode meets every target), plus raw ORT and infernode
 * binary at concurrency 8 for the batch-32 target (binary at half of raw ORT's rows/s: not met).
 */
export function overheadFixture(batchSize: number): BenchResult {
  const base = comparisonFixture();
  return {
    ...base,
    command: 'npm run bench:compare -- -m mlp --targets naive-fastify-1t,uws-ceiling,infernode',
    model: { ...base.model, batchSize },
    targets: [
      target('raw-ort', 'raw-ort', 'raw ORT', [level(8, 8000, 800, 1200, false)]),
      target('naive-fastify-1t', 'naive-fastify', 'naive Fastify 1 thread', [
        level(1, 1000, 100, 200, true),
        level(64, 2000, 10_000, 20_000, true),
      ]),
      target('uws-ceiling', 'front-end-ceiling', 'uWS ceiling', [
        level(1, 5000, 20, 40, true),
        level(64, 4000, 5000, 8000, true),
      ]),
      target('infernode', 'infernode', 'infernode', [
        level(1, 900, 105, 210, true),
        level(64, 4200, 8000, 15_000, true),
      ]),
      target('infernode-binary', 'infernode', 'infernode HTTP binary', [
        level(8, 4000, 1000, 2000, true),
      ]),
    ],
  };
}

/** infernode over one transport at `threads` threads or as `processes` servers, at 1 and 64. */
function scaled(
  id: string,
  wire: string,
  threads: number,
  processes: number,
  r1: number,
  r64: number,
  servedThreads: readonly (number | null)[] = Array.from({ length: processes }, () => threads),
): TargetResult {
  const setup = processes > 1 ? `${processes} processes` : `${threads} threads`;
  return {
    ...target(
      `${id}-${processes > 1 ? `p${processes}` : `t${threads}`}`,
      'infernode',
      `infernode ${wire}, ${setup}`,
      [level(1, r1, 500, 1500, true), level(64, r64, 20_000, 60_000, true)],
    ),
    transport: wire,
    scaling: { threads, processes, servedThreads },
  };
}

/**
 * A thread sweep on `mlp` (`--thread-sweep 1,2`): HTTP JSON and WebSocket at 1 and 2 threads and
 * as 2 processes; the WebSocket's 2-thread server reported serving on one thread.
 */
export function threadSweepFixture(): BenchResult {
  const base = comparisonFixture();
  const { options } = parseBenchFlags(
    [
      '-m',
      'mlp',
      '--concurrency-range',
      '1:64:x64',
      '--thread-sweep',
      '1,2',
      '--targets',
      'infernode,infernode-ws',
      '--no-publish',
    ],
    'compare',
  );
  return {
    ...base,
    command:
      'npm run bench:compare -- -m mlp --concurrency-range 1:64:x64 --thread-sweep 1,2 --targets infernode,infernode-ws',
    options,
    targets: [
      scaled('infernode', 'HTTP JSON', 1, 1, 1000, 2000),
      scaled('infernode', 'HTTP JSON', 2, 1, 1000, 3600),
      scaled('infernode', 'HTTP JSON', 1, 2, 1100, 3000),
      scaled('infernode-ws', 'WebSocket msgpack', 1, 1, 1200, 3000),
      scaled('infernode-ws', 'WebSocket msgpack', 2, 1, 1200, 3100, [1]),
      scaled('infernode-ws', 'WebSocket msgpack', 1, 2, 1300, 4500),
    ],
  };
}
