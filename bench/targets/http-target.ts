// Benchmarks one HTTP server (infernode, the naive Fastify server, or any KServe v2 server at
// --url): preflight the exact request bytes, fork the load generator with them, sweep the levels,
// and collect the result (the shared steps are runGeneratorSweep's).

import type { HttpEngineInit } from '../load/http-load-engine.js';
import { buildHttpRequest, type RequestBody } from '../load/http-request.js';
import type { LoadLevel } from '../load/messages.js';
import { preflight } from '../load/preflight.js';
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
}

export async function runHttpTarget(
  spec: HttpTargetSpec,
  bodies: readonly RequestBody[],
  expectedOutputs: readonly string[],
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<TargetResult> {
  const base = `http://${spec.host}:${spec.port}`;
  const path = modelPath(options.model, options.modelVersion, 'infer');
  const first = bodies[0];
  if (first === undefined) throw new Error('no request bodies');
  await preflight(base, path, first, expectedOutputs);

  const engine = (): HttpEngineInit => ({
    host: spec.host,
    port: spec.port,
    requests: bodies.map((b) => buildHttpRequest(spec.host, spec.port, path, b)),
    maxConnections: options.maxConnections,
    requestTimeoutMs: options.requestTimeoutMs,
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
