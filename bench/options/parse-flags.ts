// argv -> frozen BenchOptions for `run` and `compare`, over the shared parser
// (flag-parser.ts) and their flag table (flag-table.ts).

import os from 'node:os';
import path from 'node:path';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from '../paths.js';
import {
  COMPARE_TARGETS,
  DEFAULT_COMPARE_TARGETS,
  PROTOCOL_TARGETS,
  THREAD_SWEEP_TARGETS,
  type BenchOptions,
  type CompareTarget,
  type InputDataSource,
  type SweepMode,
} from './bench-options.js';
import { tokenize, type RawValues } from './flag-parser.js';
import { FLAGS, flagsFor, refusalsFor, type Command } from './flag-table.js';
import { parseLoadRange } from './load-range.js';
import {
  DEFAULT_SEQUENCE_OPTIONS,
  parseSequenceIdRange,
  type SequenceOptions,
} from './sequence-options.js';
import { UsageError } from './usage-error.js';

export interface ParsedCommandLine {
  readonly help: boolean;
  readonly options: BenchOptions;
}

class Reader {
  constructor(private readonly values: RawValues) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  string(name: string, fallback: string): string {
    return this.values.get(name)?.[0] ?? fallback;
  }

  list(name: string): string[] {
    return this.values.get(name) ?? [];
  }

  flag(name: string): boolean {
    return this.values.get(name)?.[0] === 'true';
  }

  number(name: string, fallback: number, check: (n: number) => boolean, expected: string): number {
    const raw = this.values.get(name)?.[0];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    const integer = FLAGS[name]?.kind === 'uint';
    if (
      raw.trim() === '' ||
      !Number.isFinite(n) ||
      (integer && !Number.isInteger(n)) ||
      !check(n)
    ) {
      throw new UsageError(`--${name}: expected ${expected}, got "${raw}"`);
    }
    return n;
  }
}

function parseShapes(items: readonly string[]): Record<string, readonly number[]> {
  const shapes: Record<string, readonly number[]> = {};
  for (const item of items) {
    const colon = item.lastIndexOf(':');
    const name = item.slice(0, colon);
    const dims = item
      .slice(colon + 1)
      .split(',')
      .map(Number);
    if (colon <= 0 || dims.some((d) => !Number.isInteger(d) || d < 0)) {
      throw new UsageError(`--shape: expected name:d1,d2 with dims >= 0, got "${item}"`);
    }
    shapes[name] = Object.freeze(dims);
  }
  return shapes;
}

function parseInputData(text: string): InputDataSource {
  if (text === 'zero' || text === 'random') return { kind: text };
  if (!text.endsWith('.json')) {
    throw new UsageError(`--input-data: expected zero, random or a FILE.json, got "${text}"`);
  }
  return { kind: 'file', path: path.resolve(text) };
}

function parseSweep(r: Reader): SweepMode {
  if (r.has('concurrency-range') && r.has('request-rate-range')) {
    throw new UsageError('give --concurrency-range or --request-rate-range, not both');
  }
  const distribution = r.string('request-distribution', 'constant');
  if (distribution !== 'constant' && distribution !== 'poisson') {
    throw new UsageError(
      `--request-distribution: expected constant or poisson, got "${distribution}"`,
    );
  }
  if (r.has('request-rate-range')) {
    const range = parseLoadRange('--request-rate-range', r.string('request-rate-range', ''), false);
    return { kind: 'request-rate', range, distribution };
  }
  if (r.has('request-distribution')) {
    throw new UsageError('--request-distribution applies to --request-rate-range only');
  }
  return {
    kind: 'concurrency',
    range: parseLoadRange('--concurrency-range', r.string('concurrency-range', '1:1:1'), true),
  };
}

const SEQUENCE_FLAGS = [
  'sequence-length',
  'sequence-length-variation',
  'num-of-sequences',
  'sequence-id-range',
];

function parseSequence(r: Reader): SequenceOptions {
  const d = DEFAULT_SEQUENCE_OPTIONS;
  return Object.freeze({
    length: r.number('sequence-length', d.length, (n) => n >= 1, 'an integer >= 1'),
    lengthVariation: r.number(
      'sequence-length-variation',
      d.lengthVariation,
      (n) => n >= 0 && n <= 100,
      'a percentage 0..100',
    ),
    numSequences: r.number('num-of-sequences', d.numSequences, (n) => n >= 1, 'an integer >= 1'),
    idRange: r.has('sequence-id-range')
      ? Object.freeze(parseSequenceIdRange(r.string('sequence-id-range', '')))
      : d.idRange,
    explicit: SEQUENCE_FLAGS.some((f) => r.has(f)),
  });
}

function parseTargets(text: string): CompareTarget[] {
  if (text.trim() === 'all') return [...COMPARE_TARGETS];
  const names = text.split(',').map((s) => s.trim());
  const out: CompareTarget[] = [];
  for (const name of names) {
    if (name === 'protocols') {
      out.push(...PROTOCOL_TARGETS.filter((t) => !out.includes(t)));
      continue;
    }
    const target = COMPARE_TARGETS.find((t) => t === name);
    if (target === undefined) {
      throw new UsageError(
        `--targets: expected any of ${COMPARE_TARGETS.join(',')}, all or protocols, got "${name}"`,
      );
    }
    if (!out.includes(target)) out.push(target);
  }
  // Run in the canonical order whatever order was typed, so every run reads the same way.
  return COMPARE_TARGETS.filter((t) => out.includes(t));
}

/**
 * `--thread-sweep`: `auto` is 1, 2, 4, ... up to `cores` (and `cores` itself); else a comma list
 * of thread counts, returned ascending without repeats.
 */
export function parseThreadSweep(text: string, cores: number): number[] {
  if (text.trim() === 'auto') {
    const counts: number[] = [];
    for (let n = 1; n <= cores; n *= 2) counts.push(n);
    if (counts.at(-1) !== cores) counts.push(Math.max(1, cores));
    return counts;
  }
  const counts = text.split(',').map((item) => {
    const n = Number(item.trim());
    if (item.trim() === '' || !Number.isInteger(n) || n < 1 || n > 256) {
      throw new UsageError(
        `--thread-sweep: expected auto or a comma list of thread counts 1..256, got "${text}"`,
      );
    }
    return n;
  });
  return [...new Set(counts)].sort((a, b) => a - b);
}

/** The thread sweep's checks against the rest of the command line. */
function checkThreadSweep(
  r: Reader,
  targets: readonly CompareTarget[],
  serverArgs: readonly string[],
): void {
  const others = targets.filter((t) => !THREAD_SWEEP_TARGETS.includes(t));
  if (others.length > 0) {
    throw new UsageError(
      `--thread-sweep measures infernode's transports only (${THREAD_SWEEP_TARGETS.join(',')}), not ${others.join(',')}`,
    );
  }
  if (serverArgs.some((a) => a.startsWith('--http-thread-count'))) {
    throw new UsageError(
      '--thread-sweep sets --http-thread-count itself: drop it from --server-arg',
    );
  }
  if (r.flag('trace')) {
    throw new UsageError(
      '--thread-sweep with --trace: a server with --trace-stages serves HTTP on one thread',
    );
  }
}

export function parseBenchFlags(argv: readonly string[], command: Command): ParsedCommandLine {
  const r = new Reader(tokenize(argv, flagsFor(command), refusalsFor(command)));
  const help = r.flag('help');
  const model = r.string('model-name', '');
  if (model === '' && !help) throw new UsageError('-m <model> is required');
  const protocol = r.string('protocol', 'http');
  if (protocol !== 'http' && protocol !== 'ws' && protocol !== 'grpc') {
    throw new UsageError(`-i: expected http, ws or grpc, got "${protocol}"`);
  }
  if (protocol === 'ws' && r.flag('binary')) {
    throw new UsageError(
      '--binary is the HTTP binary tensor extension; -i ws frames are always binary',
    );
  }
  if (protocol === 'grpc' && r.flag('binary')) {
    throw new UsageError(
      '--binary is the HTTP binary tensor extension; -i grpc sends raw_input_contents',
    );
  }
  const sharedMemory = r.string('shared-memory', 'none');
  if (sharedMemory !== 'none' && sharedMemory !== 'system') {
    throw new UsageError(
      `--shared-memory: expected none or system, got "${sharedMemory}" (infernode has no CUDA ` +
        'shared memory)',
    );
  }
  if (sharedMemory === 'system' && protocol === 'ws') {
    throw new UsageError('--shared-memory system: -i http or -i grpc (as perf_analyzer)');
  }
  if (sharedMemory === 'system' && r.flag('binary')) {
    throw new UsageError('--shared-memory system: the tensors are in regions, not --binary bodies');
  }
  if (r.has('output-shared-memory-size') && sharedMemory !== 'system') {
    throw new UsageError('--output-shared-memory-size needs --shared-memory system');
  }
  const streaming = r.flag('streaming');
  if (streaming && protocol !== 'grpc') {
    throw new UsageError('--streaming is gRPC streaming (ModelStreamInfer): it needs -i grpc');
  }
  if (r.has('grpc-client-timeout') && protocol !== 'grpc') {
    throw new UsageError('--grpc-client-timeout is a gRPC deadline: it needs -i grpc');
  }
  const cacheHitRatio = r.has('cache-hit-ratio')
    ? r.number('cache-hit-ratio', 0, (n) => n >= 0 && n <= 1, 'a share 0..1')
    : null;
  if (cacheHitRatio !== null && (protocol !== 'http' || sharedMemory === 'system')) {
    throw new UsageError(
      '--cache-hit-ratio: requests are varied over -i http without shared memory only so far',
    );
  }
  const sweep = parseSweep(r);
  const latencyThresholdMs = r.number('latency-threshold', 0, (n) => n >= 0, 'milliseconds >= 0');
  if (sweep.range.end === 0 && latencyThresholdMs === 0) {
    throw new UsageError(
      'a range with end 0 ("until latency is too high") needs --latency-threshold',
    );
  }
  const cores = os.availableParallelism();
  const trace = r.flag('trace');
  const threadSweep = r.has('thread-sweep')
    ? parseThreadSweep(r.string('thread-sweep', ''), cores)
    : [];
  if (r.flag('no-process-reference') && threadSweep.length === 0) {
    throw new UsageError('--no-process-reference applies to --thread-sweep only');
  }
  // A thread sweep runs infernode over every transport unless --targets names some.
  const targets = Object.freeze(
    parseTargets(
      r.string(
        'targets',
        (threadSweep.length > 0 ? THREAD_SWEEP_TARGETS : DEFAULT_COMPARE_TARGETS).join(','),
      ),
    ),
  );
  const serverArgs = Object.freeze([...r.list('server-arg'), ...(trace ? ['--trace-stages'] : [])]);
  if (threadSweep.length > 0) checkThreadSweep(r, targets, r.list('server-arg'));
  const options: BenchOptions = {
    model,
    modelVersion: r.string('model-version', ''),
    // perf_analyzer's defaults: Triton's HTTP port, or its gRPC port with -i grpc.
    url: r.string('url', protocol === 'grpc' ? 'localhost:8001' : 'localhost:8000'),
    protocol,
    streaming,
    batchSize: r.number('batch-size', 1, (n) => n >= 1, 'an integer >= 1'),
    sweep,
    measurementIntervalMs: r.number('measurement-interval', 5000, (n) => n >= 50, 'ms >= 50'),
    percentile: r.number(
      'percentile',
      -1,
      (n) => n === -1 || (n > 0 && n < 100),
      '-1 or 0 < p < 100',
    ),
    stabilityPercentage: r.number('stability-percentage', 10, (n) => n >= 0, 'a percentage >= 0'),
    maxTrials: r.number('max-trials', 10, (n) => n >= 1, 'an integer >= 1'),
    latencyThresholdMs,
    shapes: Object.freeze(parseShapes(r.list('shape'))),
    inputData: parseInputData(r.string('input-data', 'random')),
    stringLength: r.number('string-length', 128, () => true, 'an integer >= 0'),
    binary: r.flag('binary'),
    sharedMemory,
    outputSharedMemorySize: r.number(
      'output-shared-memory-size',
      102_400,
      (n) => n >= 1,
      'bytes >= 1',
    ),
    csvFile: r.has('latency-report-file') ? path.resolve(r.string('latency-report-file', '')) : '',
    jsonFile: r.has('json') ? path.resolve(r.string('json', '')) : '',
    outDir: path.resolve(r.string('out-dir', BENCH_OUT)),
    generatorThreads: r.number('generator-threads', 1, (n) => n >= 1 && n <= 64, '1..64'),
    maxConnections: r.number('max-connections', 256, (n) => n >= 1, 'an integer >= 1'),
    wsConnections: r.number('ws-connections', 0, (n) => n >= 0 && n <= 1024, 'an integer 0..1024'),
    requestTimeoutMs: r.number('request-timeout', 30_000, (n) => n >= 1, 'ms >= 1'),
    grpcClientTimeoutMs: r.number('grpc-client-timeout', 0, (n) => n >= 1, 'ms >= 1'),
    seed: r.number('seed', 1, () => true, 'an integer >= 0'),
    cacheHitRatio,
    serve: r.flag('serve'),
    modelRepository: path.resolve(r.string('model-repository', DEFAULT_MODEL_REPOSITORY)),
    serverArgs,
    trace,
    serverPid: r.number('server-pid', 0, () => true, 'a process id'),
    targets,
    threadSweep: Object.freeze(threadSweep),
    processReference: !r.flag('no-process-reference'),
    rawThreads: r.number('raw-threads', cores, (n) => n >= 1 && n <= 64, '1..64'),
    publish: !r.flag('no-publish'),
    sequence: parseSequence(r),
  };
  return { help, options: Object.freeze(options) };
}
