// The soak bench (production on one host, item 7): a spawned infernode on the bundled
// model_repository takes a mixed load for `--duration-secs` — good requests (HTTP JSON and binary,
// WebSocket msgpack; mlp, simple, identity_bytes), bad ones and cancelled ones (see
// soak/soak-scenarios.ts) — from this process, while its RSS is sampled every `--sample-secs`.
// Reports RSS after the warm-up and at the end, the growth between them (the issue asks < 5 %),
// and the counts by outcome; anything a healthy server would not answer is an error. Publishes
// bench/results/soak.{json,csv,svg} and its section of bench/RESULTS.md.
//
//   npm run bench:soak -- [--duration-secs 600] [--warmup-secs 60] [--lanes 4] [--no-publish]

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, onInterrupt } from './entry.js';
import { machineInfo } from './measure/machine-info.js';
import { processMemory } from './measure/process-memory.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishSoak } from './report/publish.js';
import { soakCsv } from './report/soak-report.js';
import { httpRequest } from './soak/soak-http.js';
import { SoakLoad } from './soak/soak-load.js';
import { SOAK_SCHEMA, type SoakResult, type SoakSample } from './soak/soak-result.js';
import { SOAK_MAX_INPUT_BYTES, soakScenarios } from './soak/soak-scenarios.js';
import { frontEndOf, startInfernode } from './targets/server-process.js';
import http from 'node:http';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

interface SoakOptions {
  readonly durationSecs: number;
  readonly warmupSecs: number;
  readonly sampleSecs: number;
  readonly lanes: number;
  readonly pauseMs: number;
  readonly frontEnd: string;
  readonly publish: boolean;
}

function number(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number >= ${min}`);
  return n;
}

/** Every flag of `infernode-bench soak`: parsing and its --help read this table. */
export const FLAGS = {
  'duration-secs': { kind: 'string', default: '600', help: 'Length of the run, s' },
  'warmup-secs': {
    kind: 'string',
    default: '60',
    help: 'RSS growth is measured from this time, s (< --duration-secs)',
  },
  'sample-secs': { kind: 'string', default: '5', help: 'RSS sampling period, s' },
  lanes: { kind: 'string', default: '4', help: 'Concurrent request lanes' },
  'pause-ms': { kind: 'string', default: '2', help: "Pause between one lane's requests, ms" },
  'front-end': {
    kind: 'string',
    default: 'auto',
    help: 'infernode --http-front-end: auto | uws | node',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): SoakOptions {
  const values = parseFlags(argv, FLAGS).values;
  const durationSecs = number('duration-secs', values['duration-secs'], 1);
  const warmupSecs = number('warmup-secs', values['warmup-secs'], 0);
  if (warmupSecs >= durationSecs) throw new UsageError('--warmup-secs must be < --duration-secs');
  return {
    durationSecs,
    warmupSecs,
    sampleSecs: number('sample-secs', values['sample-secs'], 0.1),
    lanes: Math.round(number('lanes', values.lanes, 1)),
    pauseMs: number('pause-ms', values['pause-ms'], 0),
    frontEnd: values['front-end'],
    publish: !values['no-publish'],
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const serverArgs = [
    `--http-max-input-size=${SOAK_MAX_INPUT_BYTES}`,
    `--http-front-end=${options.frontEnd}`,
  ];
  const server = await startInfernode(DEFAULT_MODEL_REPOSITORY, serverArgs);
  const forget = onInterrupt(() => server.stop());
  const load = new SoakLoad(soakScenarios());
  const samples: SoakSample[] = [];
  const rss = (): number => processMemory(server.pid)?.rssBytes ?? 0;
  try {
    const t0 = performance.now();
    load.start(server.host, server.port, options.lanes, options.pauseMs);
    const sample = (): SoakSample => ({
      t: Number(((performance.now() - t0) / 1000).toFixed(1)),
      rssBytes: rss(),
      counts: load.totals(),
    });
    samples.push(sample());
    for (let n = 1; n * options.sampleSecs <= options.durationSecs; n += 1) {
      await sleep(Math.max(0, t0 + n * options.sampleSecs * 1000 - performance.now()));
      const s = sample();
      samples.push(s);
      const c = s.counts;
      process.stderr.write(
        `${s.t.toFixed(0)} s: RSS ${(s.rssBytes / 2 ** 20).toFixed(1)} MiB, ok ${c.ok}, ` +
          `rejected ${c.rejected}, cancelled ${c.cancelled}, errors ${c.error}\n`,
      );
    }
    await load.stop();
    const ready = await httpRequest(
      { host: server.host, port: server.port, agent: new http.Agent() },
      { method: 'GET', path: '/v2/health/ready' },
    );
    const afterWarmup = samples.find((s) => s.t >= options.warmupSecs) ?? samples[0];
    const last = samples[samples.length - 1];
    if (afterWarmup === undefined || last === undefined) throw new Error('no RSS samples');
    const result: SoakResult = {
      schema: SOAK_SCHEMA,
      command: commandLine('soak', argv),
      startedAt,
      machine,
      serverArgs,
      frontEnd: frontEndOf(server),
      lanes: options.lanes,
      durationSecs: options.durationSecs,
      warmupSecs: options.warmupSecs,
      samples,
      scenarios: load.byScenario(),
      rssAfterWarmupBytes: afterWarmup.rssBytes,
      rssEndBytes: last.rssBytes,
      growthPercent: ((last.rssBytes - afterWarmup.rssBytes) / afterWarmup.rssBytes) * 100,
      readyAtEnd: ready.status === 200,
    };
    const out = path.join(
      BENCH_OUT,
      `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-soak`,
    );
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
    await writeFile(path.join(out, 'samples.csv'), soakCsv(result));
    process.stdout.write(`wrote ${path.relative(process.cwd(), out)}/\n`);
    const totals = load.totals();
    process.stdout.write(
      `RSS ${(result.rssAfterWarmupBytes / 2 ** 20).toFixed(1)} MiB after warm-up, ` +
        `${(result.rssEndBytes / 2 ** 20).toFixed(1)} MiB at the end (${result.growthPercent.toFixed(1)} %); ` +
        `ok ${totals.ok}, rejected ${totals.rejected}, cancelled ${totals.cancelled}, errors ${totals.error}; ` +
        `ready at the end: ${result.readyAtEnd}\n`,
    );
    for (const s of result.scenarios) {
      if (s.errorSample !== null)
        process.stdout.write(`  ${s.name}: ${s.counts.error} errors, first: ${s.errorSample}\n`);
    }
    if (options.publish) {
      for (const f of await publishSoak(result)) {
        process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
      }
    }
    return totals.error > 0 || !result.readyAtEnd ? 1 : 0;
  } finally {
    await load.stop();
    await server.stop();
    forget();
  }
}

export const command: SubcommandModule = { flags: FLAGS, main };
