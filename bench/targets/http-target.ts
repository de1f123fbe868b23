// Benchmarks one HTTP server (infernode, the naive Fastify server, or any KServe v2 server at
// --url): preflight the exact request bytes, fork the load generator with them, sweep the levels,
// and collect the result (the shared steps are runGeneratorSweep's).

import type { Datatype } from 'infernode/tooling';
import { jsonNonceSite, type CacheHitInit, type NonceSite } from '../load/cache-hit-requests.js';
import type { HttpEngineInit } from '../load/http-load-engine.js';
import { buildHttpRequest, type RequestBody } from '../load/http-request.js';
import {
  patchSequence,
  SEQUENCE_PLACEHOLDER,
  sequenceSites,
  type HttpSequenceInit,
} from '../load/http-sequence-requests.js';
import type { LoadLevel } from '../load/messages.js';
import { preflight } from '../load/preflight.js';
import type { ShardedInit } from '../load/sharded-engine.js';
import { modelPath } from '../model/kserve-paths.js';
import type { BenchOptions } from '../options/bench-options.js';
import type { Progress } from '../report/progress.js';
import type { TargetKind, TargetResult } from '../report/result-types.js';
import { runGeneratorSweep } from './generator-sweep.js';

export interface HttpTargetSpec {
  readonly id: string;
  readonly kind: TargetKind;
  readonly label: string;
  readonly description: string;
  readonly host: string;
  readonly port: number;
  /** For CPU accounting; null when the server is not ours to observe. */
  readonly pid: number | null;
  readonly notes: readonly string[];
  /**
   * The N-process reference: more servers like the first (same host, same model) on other ports;
   * the load is split evenly over all of them, and their statistics and CPU time are summed.
   */
  readonly replicas?: readonly ServerReplica[];
}

export interface ServerReplica {
  readonly port: number;
  readonly pid: number | null;
}

/** Every server behind a target: the spec's own, then its replicas. */
export function targetServers(spec: HttpTargetSpec): ServerReplica[] {
  return [{ port: spec.port, pid: spec.pid }, ...(spec.replicas ?? [])];
}

/** Engine settings for the generator: one server's, or each server's (ShardedInit). */
export function engineSettings<E>(
  spec: HttpTargetSpec,
  forPort: (port: number) => E,
): E | ShardedInit<E> {
  const servers = targetServers(spec);
  return servers.length === 1
    ? forPort(spec.port)
    : { shards: servers.map((s) => forPort(s.port)) };
}

export async function runHttpTarget(
  spec: HttpTargetSpec,
  bodies: readonly RequestBody[],
  expectedOutputs: readonly string[],
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<TargetResult> {
  const path = modelPath(options.model, options.modelVersion, 'infer');
  const first = bodies[0];
  if (first === undefined) throw new Error('no request bodies');
  const sequences = sequenceInit(options, first);
  // A sequence model's preflight is a sequence of one request (start and end), under the
  // range's first id, which the run then reuses for a fresh sequence.
  const probe: RequestBody =
    sequences === null
      ? first
      : {
          ...first,
          body: patchSequence(Buffer.from(first.body), sequenceSites(Buffer.from(first.body)), {
            id: options.sequence.idRange.start,
            start: true,
            end: true,
          }),
        };
  for (const server of targetServers(spec)) {
    await preflight(`http://${spec.host}:${server.port}`, path, probe, expectedOutputs);
  }

  const engine = (): HttpEngineInit | ShardedInit<HttpEngineInit> =>
    engineSettings(spec, (port) => {
      const requests = bodies.map((b) => buildHttpRequest(spec.host, port, path, b));
      return {
        host: spec.host,
        port,
        requests,
        maxConnections: options.maxConnections,
        requestTimeoutMs: options.requestTimeoutMs,
        sequences,
        cacheHits: cacheHitInit(options, bodies, requests),
      };
    });
  return runGeneratorSweep(
    spec,
    {
      generator: 'generator-process.js',
      engine,
      transport: options.binary ? 'HTTP binary' : 'HTTP JSON',
      notes: [],
    },
    levels,
    options,
    progress,
  );
}

/** The generator's sequence settings when the bodies carry sequence placeholders, else null. */
function sequenceInit(options: BenchOptions, body: RequestBody): HttpSequenceInit | null {
  const marked = Buffer.from(body.body).includes(
    `"sequence_id":${SEQUENCE_PLACEHOLDER.sequence_id}`,
    0,
    'latin1',
  );
  if (!marked) return null;
  return { options: options.sequence, threads: options.generatorThreads, seed: options.seed };
}

/**
 * The generator's --cache-hit-ratio settings (null without the flag): where each prebuilt request
 * holds its nonce placeholder (prepare-run.ts put it in the first input's first element).
 */
function cacheHitInit(
  options: BenchOptions,
  bodies: readonly RequestBody[],
  requests: readonly Buffer[],
): CacheHitInit | null {
  if (options.cacheHitRatio === null) return null;
  const sites = requests.map((request, i): NonceSite => {
    const body = bodies[i] as RequestBody;
    if (body.inferenceHeaderLength === undefined) return jsonNonceSite(request);
    // Binary extension: the first input's bytes follow the JSON header, whose first input names
    // their datatype.
    const header = JSON.parse(
      Buffer.from(body.body.subarray(0, body.inferenceHeaderLength)).toString('utf8'),
    ) as { inputs: { datatype: Datatype }[] };
    const datatype = header.inputs[0]?.datatype;
    if (datatype === undefined) throw new Error('--cache-hit-ratio: a request without inputs');
    return {
      kind: 'binary',
      offset: request.length - body.body.byteLength + body.inferenceHeaderLength,
      datatype,
    };
  });
  return {
    ratio: options.cacheHitRatio,
    sites,
    threads: options.generatorThreads,
    seed: options.seed,
  };
}
