// npm run bench:ensemble: what an ensemble costs against a client that runs the same pipeline
// itself. A spawned infernode serves the bundled repository; closed-loop clients send pipelines
// for `--measure-secs` each, at every concurrency, either as one request to the `sentiment`
// ensemble or as its three steps in a row (tokenizer -> classifier -> postprocess), every answer
// parsed and fed to the next request. Writes bench/out/<time>-ensemble/ and publishes
// bench/results/ensemble-overhead.json with its section of bench/RESULTS.md.

import type http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLine } from './entry.js';
import { closedLoop, latencyFigures, postJson } from './measure/load-window.js';
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

async function post(
  agent: http.Agent,
  server: ServerProcess,
  model: string,
  inputs: readonly Tensor[],
): Promise<Tensor[]> {
  const body = Buffer.from(JSON.stringify({ inputs }));
  const reply = await postJson(agent, server, `/v2/models/${model}/infer`, body);
  const text = reply.body.toString('utf8');
  if (reply.status !== 200) throw new Error(`${model}: ${reply.status} ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { outputs: Tensor[] }).outputs;
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

async function cell(
  server: ServerProcess,
  mode: PipelineMode,
  concurrency: number,
  warmupSecs: number,
  measureSecs: number,
): Promise<EnsembleCell> {
  const w = await closedLoop(concurrency, warmupSecs, measureSecs, (agent, k) =>
    pipeline(mode, agent, server, TEXTS[k % TEXTS.length] as string),
  );
  const f = latencyFigures(w.latencies, measureSecs);
  return {
    mode,
    concurrency,
    pipelines: f.requests,
    errors: w.errors,
    perSec: f.perSec,
    p50Ms: f.p50Ms,
    p99Ms: f.p99Ms,
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
