// npm run bench:ensemble: what an ensemble costs against a client that runs the same pipeline
// itself. A spawned infernode serves the bundled repository; closed-loop clients send pipelines
// for `--measure-secs` each, at every concurrency, either as one request to the `sentiment`
// ensemble or as its three steps in a row (tokenizer -> classifier -> postprocess), every answer
// parsed and fed to the next request. Writes bench/out/<time>-ensemble/ and publishes
// bench/results/ensemble-overhead.json with its section of bench/RESULTS.md.

import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLine } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import {
  ENSEMBLE_SCHEMA,
  type EnsembleCell,
  type EnsembleResult,
  type PipelineMode,
} from './pipelines/ensemble-result.js';
import { publishEnsembleOverhead } from './report/publish.js';
import { frontEndOf, startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

const TEXTS = [
  'I love this movie, it was great!',
  'The food was awful and the service was slow.',
  'We went to the place on Tuesday.',
  'A delightful, beautiful story with a wonderful ending.',
];

interface Tensor {
  readonly name: string;
  readonly datatype: string;
  readonly shape: number[];
  readonly data: unknown[];
}

function post(
  agent: http.Agent,
  server: ServerProcess,
  model: string,
  inputs: readonly Tensor[],
): Promise<Tensor[]> {
  const body = Buffer.from(JSON.stringify({ inputs }));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: server.host,
        port: server.port,
        agent,
        method: 'POST',
        path: `/v2/models/${model}/infer`,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            reject(new Error(`${model}: ${res.statusCode} ${text.slice(0, 200)}`));
            return;
          }
          resolve((JSON.parse(text) as { outputs: Tensor[] }).outputs);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const text = (s: string): Tensor[] => [
  { name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [s] },
];

/** One pipeline, as one ensemble request or as its three steps. */
async function pipeline(
  mode: PipelineMode,
  agent: http.Agent,
  server: ServerProcess,
  s: string,
): Promise<void> {
  if (mode === 'ensemble') {
    await post(agent, server, 'sentiment', text(s));
    return;
  }
  const ids = (await post(agent, server, 'sentiment_tokenizer', text(s)))[0] as Tensor;
  const logits = (
    await post(agent, server, 'sentiment_classifier', [{ ...ids, name: 'INPUT_IDS' }])
  )[0] as Tensor;
  await post(agent, server, 'sentiment_postprocess', [{ ...logits, name: 'LOGITS' }]);
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function cell(
  server: ServerProcess,
  mode: PipelineMode,
  concurrency: number,
  warmupSecs: number,
  measureSecs: number,
): Promise<EnsembleCell> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const measureFrom = start + warmupSecs * 1000;
  const end = measureFrom + measureSecs * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      for (let i = client; performance.now() < end; i += concurrency) {
        const t0 = performance.now();
        try {
          await pipeline(mode, agent, server, TEXTS[i % TEXTS.length] as string);
          const t1 = performance.now();
          if (t0 >= measureFrom && t1 <= end) latencies.push(t1 - t0);
        } catch {
          if (t0 >= measureFrom) errors += 1;
        }
      }
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    mode,
    concurrency,
    pipelines: latencies.length,
    errors,
    perSec: latencies.length / measureSecs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/** Every flag of `infernode-bench ensemble`: parsing and its --help read this table. */
export const FLAGS = {
  concurrency: { kind: 'string', default: '1,8', help: 'Comma list of client concurrencies' },
  'measure-secs': { kind: 'string', default: '5', help: 'Measured time per cell, s' },
  'warmup-secs': { kind: 'string', default: '1', help: 'Warm-up per cell, s' },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const concurrencies = (values.concurrency ?? '').split(',').map(Number);
  const measureSecs = Number(values['measure-secs']);
  const warmupSecs = Number(values['warmup-secs']);
  if (concurrencies.some((c) => !Number.isSafeInteger(c) || c < 1) || !(measureSecs > 0)) {
    throw new UsageError(
      `--concurrency: expected integers >= 1 like 1,8; --measure-secs: expected > 0; got ${values.concurrency}, ${values['measure-secs']}`,
    );
  }
  const server = await startInfernode(DEFAULT_MODEL_REPOSITORY, []);
  const cells: EnsembleCell[] = [];
  try {
    for (const c of concurrencies) {
      for (const mode of ['ensemble', 'steps'] as const) {
        const r = await cell(server, mode, c, warmupSecs, measureSecs);
        process.stdout.write(
          `${mode.padEnd(8)} c=${c}: ${r.perSec.toFixed(0)} pipelines/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.errors} errors\n`,
        );
        cells.push(r);
      }
    }
  } finally {
    await server.stop();
  }
  const result: EnsembleResult = {
    schema: ENSEMBLE_SCHEMA,
    startedAt: new Date().toISOString(),
    command: commandLine('ensemble', argv),
    machine: machineInfo(),
    frontEnd: frontEndOf(server),
    measureSecs,
    cells,
  };
  const out = path.join(BENCH_OUT, `${result.startedAt.replace(/[:.]/g, '-')}-ensemble`);
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (values['no-publish'] !== true) {
    for (const f of await publishEnsembleOverhead(result)) process.stdout.write(`wrote ${f}\n`);
  }
  return cells.some((c) => c.errors > 0) ? 1 : 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
