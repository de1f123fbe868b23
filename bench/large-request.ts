// The large-request memory bench (production on one host, item 4): for each front end, body
// encoding (binary tensor extension, JSON), body size and ORT memory arena setting, a fresh
// infernode serves one request to an FP32 identity model, while this process samples the server's
// RSS every 20 ms: before, the peak, and after a settle time. The issue's target: a peak of about
// twice the body (plus a constant), given back afterwards. Publishes
// bench/results/large-request.json and its section of bench/RESULTS.md.
//
//   npm run bench:large -- [--sizes-mib 64,256] [--encodings binary,json] [--front-ends uws,node]
//                          [--arena on,off] [--settle-secs 3] [--no-publish]

import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine, onInterrupt } from './entry.js';
import {
  LARGE_SCHEMA,
  type Encoding,
  type LargeResult,
  type LargeRow,
} from './large/large-result.js';
import { machineInfo } from './measure/machine-info.js';
import { processMemory } from './measure/process-memory.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, REPO_ROOT } from './paths.js';
import { publishLargeRequest } from './report/publish.js';
import { frontEndOf, startInfernode } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

const MODEL = 'identity_fp32';
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'repository', MODEL);
const MIB = 2 ** 20;
const SAMPLE_MS = 20;

interface LargeOptions {
  readonly sizes: readonly number[];
  readonly encodings: readonly Encoding[];
  readonly frontEnds: readonly string[];
  readonly arenas: readonly boolean[];
  readonly settleMs: number;
  readonly publish: boolean;
}

function list<T>(name: string, text: string, allowed: Readonly<Record<string, T>>): T[] {
  return text.split(',').map((t) => {
    const v = allowed[t.trim()];
    if (v === undefined)
      throw new UsageError(
        `--${name}: expected some of ${Object.keys(allowed).join(', ')}, got "${t}"`,
      );
    return v;
  });
}

/** Every flag of `infernode-bench large`: parsing and its --help read this table. */
export const FLAGS = {
  'sizes-mib': { kind: 'string', default: '64,256', help: 'Comma list of request body sizes, MiB' },
  encodings: { kind: 'string', default: 'binary,json', help: 'Comma list of binary, json' },
  'front-ends': { kind: 'string', default: 'uws,node', help: 'Comma list of uws, node' },
  arena: { kind: 'string', default: 'on,off', help: 'ORT memory arena: comma list of on, off' },
  'settle-secs': {
    kind: 'string',
    default: '3',
    help: 'Wait after the response before the last RSS reading, s',
  },
  'no-publish': { kind: 'flag', help: 'Do not update bench/results/ and bench/RESULTS.md' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

function parseOptions(argv: readonly string[]): LargeOptions {
  const values = parseFlags(argv, FLAGS).values;
  const sizes = values['sizes-mib'].split(',').map((t) => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1 || n > 1024)
      throw new UsageError(`--sizes-mib: expected integers 1..1024, got "${t}"`);
    return n * MIB;
  });
  const settle = Number(values['settle-secs']);
  if (!Number.isFinite(settle) || settle < 0) throw new UsageError('--settle-secs must be >= 0');
  return {
    sizes,
    encodings: list('encodings', values.encodings, { binary: 'binary', json: 'json' } as const),
    frontEnds: list('front-ends', values['front-ends'], { uws: 'uws', node: 'node' }),
    arenas: list('arena', values.arena, { on: true, off: false }),
    settleMs: settle * 1000,
    publish: !values['no-publish'],
  };
}

/**
 * The request body of `bytes` bytes. JSON: one "0.5" per element, comma-separated, so the text and
 * the FP32 tensor are the same size. Binary: the tensor's raw bytes after a JSON header.
 */
function requestBody(
  encoding: Encoding,
  bytes: number,
): { body: Buffer; headers: http.OutgoingHttpHeaders } {
  const elements = Math.floor(bytes / 4);
  if (encoding === 'json') {
    const head = `{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,${elements}],"data":[`;
    const tail = ']}]}';
    const data = Buffer.alloc(elements * 4 - 1, '0.5,');
    const body = Buffer.concat([Buffer.from(head), data, Buffer.from(tail)]);
    return { body, headers: { 'content-type': 'application/json' } };
  }
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [1, elements],
          parameters: { binary_data_size: elements * 4 },
        },
      ],
      parameters: { binary_data_output: true },
    }),
  );
  const data = Buffer.alloc(elements * 4);
  new Float32Array(data.buffer, data.byteOffset, elements).fill(0.5);
  return {
    body: Buffer.concat([header, data]),
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': header.length,
    },
  };
}

/** Sends the body; resolves with the status once the whole answer has been read. */
function send(
  port: number,
  model: string,
  body: Buffer,
  headers: http.OutgoingHttpHeaders,
): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/v2/models/${model}/infer`,
        agent: false,
        headers: { ...headers, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

/** A repository with the identity model twice: as is (arena on) and with enable_mem_arena "0". */
async function makeRepository(): Promise<string> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'infernode-large-bench-'));
  await cp(FIXTURE, path.join(repo, MODEL), { recursive: true });
  const off = `${MODEL}_no_arena`;
  await cp(FIXTURE, path.join(repo, off), { recursive: true });
  const config = await readFile(path.join(repo, off, 'config.pbtxt'), 'utf8');
  await writeFile(
    path.join(repo, off, 'config.pbtxt'),
    `${config.replace(`name: "${MODEL}"`, `name: "${off}"`)}\nparameters { key: "enable_mem_arena" value: { string_value: "0" } }\n`,
  );
  return repo;
}

async function measure(
  repo: string,
  frontEnd: string,
  encoding: Encoding,
  bytes: number,
  arena: boolean,
  settleMs: number,
): Promise<LargeRow> {
  const model = arena ? MODEL : `${MODEL}_no_arena`;
  const server = await startInfernode(repo, [
    `--http-front-end=${frontEnd}`,
    `--http-max-input-size=${bytes + 16 * MIB}`,
    '--model-control-mode=explicit',
    `--load-model=${model}`,
  ]);
  const forget = onInterrupt(() => server.stop());
  try {
    const { body, headers } = requestBody(encoding, bytes);
    await sleep(1000); // start-up garbage settles
    const rss = (): number => processMemory(server.pid)?.rssBytes ?? 0;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), SAMPLE_MS);
    const t0 = performance.now();
    const status = await send(server.port, model, body, headers);
    const requestMs = performance.now() - t0;
    await sleep(settleMs);
    clearInterval(sampler);
    const after = rss();
    peak = Math.max(peak, processMemory(server.pid)?.peakRssBytes ?? 0);
    return {
      frontEnd: frontEndOf(server) ?? frontEnd,
      encoding,
      bodyBytes: body.length,
      arena,
      status,
      requestMs,
      beforeBytes: before,
      peakBytes: peak,
      afterBytes: after,
    };
  } finally {
    await server.stop();
    forget();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const repo = await makeRepository();
  const forget = onInterrupt(() => rm(repo, { recursive: true, force: true }));
  const rows: LargeRow[] = [];
  try {
    for (const frontEnd of options.frontEnds) {
      for (const encoding of options.encodings) {
        for (const bytes of options.sizes) {
          for (const arena of options.arenas) {
            const r = await measure(repo, frontEnd, encoding, bytes, arena, options.settleMs);
            rows.push(r);
            const m = (b: number): string => (b / MIB).toFixed(0);
            process.stderr.write(
              `${r.frontEnd} ${encoding} ${m(r.bodyBytes)} MiB arena ${arena ? 'on' : 'off'}: ` +
                `status ${r.status}, ${r.requestMs.toFixed(0)} ms, RSS ${m(r.beforeBytes)} -> peak ` +
                `${m(r.peakBytes)} -> after ${m(r.afterBytes)} MiB ` +
                `(peak - before = ${((r.peakBytes - r.beforeBytes) / r.bodyBytes).toFixed(2)}x body)\n`,
            );
          }
        }
      }
    }
  } finally {
    await rm(repo, { recursive: true, force: true });
    forget();
  }
  const result: LargeResult = {
    schema: LARGE_SCHEMA,
    command: commandLine('large', argv),
    startedAt,
    machine,
    model: MODEL,
    settleMs: options.settleMs,
    rows,
  };
  const out = path.join(
    BENCH_OUT,
    `${startedAt.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z')}-large-request`,
  );
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}/\n`);
  if (options.publish) {
    for (const f of await publishLargeRequest(result)) {
      process.stdout.write(`wrote ${path.relative(process.cwd(), f)}\n`);
    }
  }
  return rows.every((r) => r.status === 200) ? 0 : 1;
}

export const command: SubcommandModule = { flags: FLAGS, main };
