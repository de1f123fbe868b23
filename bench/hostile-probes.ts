// The probes of three defects of issue 33 (hostile clients), against spawned infernode servers, so
// their before/after figures can be measured again with one command. Prints one JSON line per
// probe and front end and appends them to <out-dir>/<time>-hostile-probes/results.jsonl; nothing
// is published.
//
// - framing (defect 3): each malformed chunked POST of the conformance table (and one with trailer
//   fields), with `GET /v2` pipelined behind it, over a raw socket: the responses that came back
//   and whether the server closed the connection. A second response is request smuggling.
// - fds (defect 4): N clients send half a request head, then neither read nor close; the server's
//   socket fds (/proc/<pid>/fd) over its baseline at the head timeout, +2 s and +10 s, and when
//   they were all released.
// - exit (defect 7): SIGTERM while a deep slow_fp32 graph is still being created at start-up,
//   with --exit-timeout-secs=3: seconds from the signal to the exit, and how it ended.
//
//   node dist/bench/cli.js hostile-probes [--front-end uws|node] [--probe framing,fds,exit]
//     [--clients 20] [--header-timeout-secs 1 (node; uws: its fixed 10)] [--fd-wait-secs 20]
//     [--exit-timeout-secs 3]
//     [--layers 5000] [--out-dir bench/out]

import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { slowModel } from '../scripts/onnx/fixture-models.js';
import {
  CHUNKED_DEFECTS,
  chunkedRequest,
  HANG_MS,
  NO_FINAL_CRLF,
  nextOrHung,
  TRAILER_BODY,
} from '../test/conformance/chunked-defect-cases.js';
import { deafClient, openSockets } from '../test/conformance/held-socket-cases.js';
import { RawConnection, rawRequest } from '../test/conformance/raw-http.js';
import { runCli } from '../test/helpers/spawn-server.js';
import { slowModelConfig } from '../test/helpers/slow-model-timing.js';
import { logged } from '../test/helpers/wait-for.js';
import { commandLine, onInterrupt } from './entry.js';
import { UsageError } from './options/usage-error.js';
import { BENCH_OUT, REPO_ROOT } from './paths.js';
import { frontEndOf, startInfernode } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

const MODEL = 'identity_fp32';
const INFER = `/v2/models/${MODEL}/infer`;
const PROBES = ['framing', 'fds', 'exit'] as const;
type Probe = (typeof PROBES)[number];

interface Options {
  readonly frontEnd: string;
  readonly clients: number;
  /** null: the flag is not passed (node: 1 s is passed; uws: its fixed 10 s). */
  readonly headerTimeoutSecs: number | null;
  readonly fdWaitMs: number;
  readonly exitTimeoutSecs: number;
  readonly layers: number;
}

type Emit = (line: Record<string, unknown>) => Promise<void>;

/** A fresh repository holding only identity_fp32 (framing and fds need a server, not a model). */
async function identityRepository(): Promise<string> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'hostile-probes-'));
  await cp(path.join(REPO_ROOT, 'test', 'fixtures', 'repository', MODEL), path.join(repo, MODEL), {
    recursive: true,
  });
  return repo;
}

/**
 * What a connection got for one chunked POST with `GET /v2` (Connection: close) behind it: every
 * status until the server closed, or 'hung' after HANG_MS of silence. A correct server answers
 * both (a legal body) or sends one 400 and closes (a malformed one); two answers to a malformed
 * body mean the server read the body differently from the framing (request smuggling).
 */
async function pipelined(port: number, body: string): Promise<Record<string, unknown>> {
  const conn = await RawConnection.open(port);
  const started = Date.now();
  const statuses: number[] = [];
  let end: 'closed' | 'hung' = 'hung';
  try {
    await conn.send(
      Buffer.concat([
        chunkedRequest(INFER, body),
        rawRequest('GET', '/v2', [['Connection', 'close']]),
      ]),
    );
    for (;;) {
      const outcome = await nextOrHung(conn);
      if (outcome === 'hung' || outcome === 'closed') {
        end = outcome;
        break;
      }
      statuses.push(outcome.status);
    }
  } finally {
    conn.destroy();
  }
  return {
    responses: statuses.length,
    statuses,
    closedByServer: end === 'closed',
    ms: Date.now() - started - (end === 'hung' ? HANG_MS : 0),
  };
}

async function framing(opts: Options, emit: Emit): Promise<void> {
  const repo = await identityRepository();
  const server = await startInfernode(repo, [`--http-front-end=${opts.frontEnd}`]);
  const cancel = onInterrupt(() => server.stop());
  try {
    const cases: (readonly [string, string, boolean])[] = [
      ...[...CHUNKED_DEFECTS, NO_FINAL_CRLF].map(([what, body]) => [what, body, true] as const),
      ['trailer fields', TRAILER_BODY, false],
    ];
    for (const [what, body, malformed] of cases) {
      await emit({
        probe: 'framing',
        frontEnd: frontEndOf(server),
        case: what,
        malformed,
        ...(await pipelined(server.port, body)),
      });
    }
  } finally {
    cancel();
    await server.stop();
    await rm(repo, { recursive: true, force: true });
  }
}

/**
 * The server's socket count once it has held still for a second: just after start-up it is still
 * closing sockets of its own (a baseline taken then reads released clients as negative).
 */
async function settledSockets(pid: number): Promise<number> {
  let last = openSockets(pid);
  for (let still = 0, tries = 0; still < 10 && tries < 100; tries++) {
    await sleep(100);
    const now = openSockets(pid);
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

async function fds(opts: Options, emit: Emit): Promise<void> {
  const repo = await identityRepository();
  // uWebSockets.js fixes its HTTP timeouts at 10 s and infernode refuses the flag with it.
  const headerTimeoutSecs = opts.headerTimeoutSecs ?? (opts.frontEnd === 'uws' ? 10 : 1);
  const timeoutMs = headerTimeoutSecs * 1000;
  const server = await startInfernode(repo, [
    `--http-front-end=${opts.frontEnd}`,
    ...(opts.headerTimeoutSecs === null ? [] : [`--http-header-timeout-secs=${headerTimeoutSecs}`]),
  ]);
  const cancel = onInterrupt(() => server.stop());
  const clients: net.Socket[] = [];
  try {
    const baseline = await settledSockets(server.pid);
    const held = (): number => openSockets(server.pid) - baseline;
    const started = Date.now();
    for (let i = 0; i < opts.clients; i++) {
      clients.push(await deafClient(server.port, 'GET /v2 HTTP/1.1\r\nHost: x\r\n'));
    }
    const checkpoints = [0, 2000, 10_000].map((after) => timeoutMs + after);
    const samples: Record<string, number> = {};
    let peak = 0;
    let releasedAtMs: number | null = null;
    while (Date.now() - started <= timeoutMs + opts.fdWaitMs) {
      const now = held();
      const at = Date.now() - started;
      peak = Math.max(peak, now);
      while (checkpoints.length > 0 && at >= (checkpoints[0] ?? 0)) {
        samples[`heldAt${(checkpoints.shift() ?? 0) / 1000}s`] = now;
      }
      if (at > timeoutMs && now <= 0 && releasedAtMs === null) releasedAtMs = at;
      if (releasedAtMs !== null && checkpoints.length === 0) break;
      await sleep(100);
    }
    await emit({
      probe: 'fds',
      frontEnd: frontEndOf(server),
      clients: opts.clients,
      headerTimeoutSecs,
      peakHeld: peak,
      ...samples,
      releasedAtSecs: releasedAtMs === null ? null : Math.round(releasedAtMs / 100) / 10,
      waitedSecs: Math.round((Date.now() - started) / 100) / 10,
    });
  } finally {
    for (const c of clients) c.destroy();
    cancel();
    await server.stop();
    await rm(repo, { recursive: true, force: true });
  }
}

async function exit(opts: Options, emit: Emit): Promise<void> {
  const repo = await mkdtemp(path.join(os.tmpdir(), 'hostile-probes-exit-'));
  const name = 'slow_create';
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  await writeFile(path.join(repo, name, '1', 'model.onnx'), slowModel(opts.layers));
  await writeFile(path.join(repo, name, 'config.pbtxt'), slowModelConfig(name));
  const run = runCli([
    `--model-repository=${repo}`,
    `--http-front-end=${opts.frontEnd}`,
    '--http-address=127.0.0.1',
    '--http-port=0',
    '--metrics-port=0',
    '--grpc-port=0',
    `--exit-timeout-secs=${opts.exitTimeoutSecs}`,
  ]);
  const kill = async (): Promise<void> => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await run.exited;
  };
  const cancel = onInterrupt(kill);
  try {
    // The load plan names the model before the workers start creating its session.
    await logged(run.lines, name);
    const signalledAt = Date.now();
    run.child.kill('SIGTERM');
    const outcome = await Promise.race([run.exited, sleep(120_000, 'still running')]);
    await emit({
      probe: 'exit',
      // The server never gets to listen, so this is the flag, not the front end it reports.
      frontEndFlag: opts.frontEnd,
      layers: opts.layers,
      exitTimeoutSecs: opts.exitTimeoutSecs,
      exitSecs: Math.round((Date.now() - signalledAt) / 100) / 10,
      endedBy: outcome,
      modelLoaded: run.lines.some((l) => l.includes('model version ready')),
      deadlineLogged: run.lines.some((l) => l.includes('--exit-timeout-secs ran out')),
    });
  } finally {
    cancel();
    await kill();
    await rm(repo, { recursive: true, force: true });
  }
}

const RUN: Record<Probe, (opts: Options, emit: Emit) => Promise<void>> = { framing, fds, exit };

function count(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${flag}: expected a count ≥ 1`);
  return n;
}

/** Every flag of `infernode-bench hostile-probes`: parsing and its --help read this table. */
export const FLAGS = {
  'front-end': { kind: 'string', default: 'uws', help: 'infernode --http-front-end: uws | node' },
  probe: { kind: 'string', default: PROBES.join(','), help: 'Comma list of framing, fds, exit' },
  clients: { kind: 'string', default: '20', help: 'fds: stalled clients' },
  'header-timeout-secs': {
    kind: 'string',
    help: "fds: the server's header timeout, s (node: 1; uws: its fixed 10)",
  },
  'fd-wait-secs': {
    kind: 'string',
    default: '20',
    help: 'fds: how long to wait for the fds to be released, s',
  },
  'exit-timeout-secs': {
    kind: 'string',
    default: '3',
    help: "exit: the server's --exit-timeout-secs",
  },
  layers: { kind: 'string', default: '5000', help: 'exit: layers of the slow-loading model' },
  'out-dir': { kind: 'string', default: BENCH_OUT, help: 'Directory for run outputs' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const probes = (values.probe ?? '').split(',');
  for (const p of probes) {
    if (!(PROBES as readonly string[]).includes(p))
      throw new UsageError(`--probe: expected some of ${PROBES.join(',')}, got "${p}"`);
  }
  const opts: Options = {
    frontEnd: values['front-end'] ?? 'uws',
    clients: count('clients', values.clients),
    headerTimeoutSecs:
      values['header-timeout-secs'] !== undefined
        ? count('header-timeout-secs', values['header-timeout-secs'])
        : values['front-end'] === 'uws'
          ? null
          : 1,
    fdWaitMs: count('fd-wait-secs', values['fd-wait-secs']) * 1000,
    exitTimeoutSecs: count('exit-timeout-secs', values['exit-timeout-secs']),
    layers: count('layers', values.layers),
  };
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = path.join(values['out-dir'] ?? BENCH_OUT, `${stamp}-hostile-probes`);
  await mkdir(out, { recursive: true });
  const results = path.join(out, 'results.jsonl');
  const emit: Emit = async (fields) => {
    const line = `${JSON.stringify(fields)}\n`;
    process.stdout.write(line);
    await appendFile(results, line);
  };
  await emit({ command: commandLine('hostile-probes', argv) });
  for (const p of probes) await RUN[p as Probe](opts, emit);
  process.stdout.write(`wrote ${results}\n`);
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
