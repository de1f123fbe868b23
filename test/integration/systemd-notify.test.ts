// The `infernode` command under systemd's notify protocol, with the real CLI in a child process and
// $NOTIFY_SOCKET pointing at a socket this test owns: READY=1 only once /v2/health/ready answers
// 200 (after a model that takes a measurable time to load), WATCHDOG=1 at about half of
// $WATCHDOG_USEC, STOPPING=1 as soon as SIGTERM starts the drain, and readiness-rule cases with a
// model that fails to load.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { datagramsUnavailable, NotifyReceiver, statusOf } from '../helpers/notify-receiver.js';
import { copySlowModel, inferSlow, type SlowReply } from '../helpers/slow-model-timing.js';
import { CLI, LOOPBACK_EPHEMERAL_PORTS } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { pendingRequests, waitFor } from '../helpers/wait-for.js';

/** systemd's $WATCHDOG_USEC for the tests: pings every 100 ms. */
const WATCHDOG_USEC = 200_000;
const PING_MS = WATCHDOG_USEC / 2000;

/**
 * Warm-up runs at load: slow_fp32 runs 32 rows this many times before it is ready, a few hundred
 * ms here and more on a loaded machine, so that loading is a phase the test can see.
 */
const SLOW_LOAD_WARMUP = `
model_warmup {
  name: "slow_load"
  batch_size: 32
  count: 3
  inputs { key: "INPUT0" value: { data_type: TYPE_FP32 dims: [ 1024 ] zero_data: true } }
}
`;

interface Run {
  readonly lines: string[];
  readonly exited: Promise<number | string>;
  readonly pid: number;
  kill(signal: NodeJS.Signals): void;
  /** The HTTP base URL and the metrics URL, once the server logged its ports. */
  ports(): Promise<{ base: string; metricsBase: string }>;
}

/** Runs the CLI with `env` added to this process's environment, on ephemeral loopback ports. */
function runWithEnv(args: readonly string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, [CLI, ...LOOPBACK_EPHEMERAL_PORTS, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return {
    lines,
    exited,
    pid: child.pid ?? -1,
    kill: (signal) => child.kill(signal),
    ports: async () => {
      const line = await waitFor(
        () => lines.find((l) => l.includes('"httpPort"')),
        (l) => l !== undefined,
      );
      assert.ok(line !== undefined, `the server logs its ports:\n${lines.join('\n')}`);
      const p = JSON.parse(line) as { httpPort: number; metricsPort: number };
      return {
        base: `http://127.0.0.1:${p.httpPort}`,
        metricsBase: `http://127.0.0.1:${p.metricsPort}`,
      };
    },
  };
}

async function readyStatus(base: string): Promise<number> {
  return (await fetch(`${base}/v2/health/ready`)).status;
}

void describe('systemd notifications', { skip: datagramsUnavailable() }, () => {
  let repo: string;
  let badRepo: string;
  const runs: Run[] = [];
  const receivers: NotifyReceiver[] = [];
  const start = async (
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ run: Run; notes: NotifyReceiver }> => {
    const notes = await NotifyReceiver.open();
    receivers.push(notes);
    const run = runWithEnv(args, { NOTIFY_SOCKET: notes.socketPath, ...env });
    runs.push(run);
    return { run, notes };
  };

  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    const slow = await copySlowModel(repo, 'slow_fp32');
    await appendFile(path.join(slow, 'config.pbtxt'), SLOW_LOAD_WARMUP);
    badRepo = await tempRepository();
    await copyModel(badRepo, 'simple');
    await copyModel(badRepo, 'bad_truncated');
  });
  after(async () => {
    for (const r of runs) r.kill('SIGKILL');
    for (const n of receivers) await n.close();
    await rm(repo, { recursive: true, force: true });
    await rm(badRepo, { recursive: true, force: true });
  });

  void it('READY=1 once ready, WATCHDOG=1 at half WATCHDOG_USEC, STOPPING=1 at SIGTERM', async (c) => {
    const { run, notes } = await start([`--model-repository=${repo}`, '--exit-timeout-secs=20'], {
      WATCHDOG_USEC: String(WATCHDOG_USEC),
    });

    // READY=1 arrives, and at that moment the server answers ready; its STATUS counts the models.
    const ready = await notes.first('READY=1');
    assert.ok(ready !== undefined, `READY=1 arrives:\n${run.lines.join('\n')}`);
    const { base, metricsBase } = await run.ports();
    assert.equal(await readyStatus(base), 200, '/v2/health/ready at READY=1');
    assert.match(statusOf(ready) ?? '', /^serving 2 models \(2 ready\) on HTTP :\d+, gRPC :\d+/);
    assert.equal(notes.with('READY=1').length, 1, 'READY=1 is sent once');

    // Nothing said READY while the models loaded: the first datagram is the loading status, and
    // the loop pinged the watchdog through a load phase of measurable length before READY=1.
    const first = notes.received[0];
    assert.ok(first !== undefined);
    assert.equal(statusOf(first), 'loading models');
    const loadMs = ready.at - first.at;
    const pingsWhileLoading = notes.with('WATCHDOG=1').filter((n) => n.at < ready.at).length;
    c.diagnostic(`loading took ${loadMs.toFixed(0)} ms, ${pingsWhileLoading} pings meanwhile`);
    assert.ok(pingsWhileLoading >= 2, `pings while the slow model warmed up: ${pingsWhileLoading}`);

    // WATCHDOG=1 at about every PING_MS: counted over a window, with wide bounds for a busy machine
    // (a late timer only lowers the count; nothing sends more often than asked).
    const windowMs = 1500;
    const from = performance.now();
    await new Promise((r) => setTimeout(r, windowMs));
    const pings = notes.with('WATCHDOG=1').filter((n) => n.at >= from).length;
    c.diagnostic(`${pings} pings in ${windowMs} ms (one per ${PING_MS} ms asked)`);
    assert.ok(pings >= windowMs / PING_MS / 3, `at least a third of the expected pings: ${pings}`);
    assert.ok(pings <= windowMs / PING_MS + 3, `no more pings than asked: ${pings}`);

    // SIGTERM with two requests on the server (one running, one queued behind it): STOPPING=1
    // arrives while they are still being served, before the last answer and before the exit.
    const inflight: Promise<SlowReply | 'dropped'>[] = [0, 1].map((k) =>
      inferSlow(base, 'slow_fp32', 64, { seed: k }).catch(() => 'dropped' as const),
    );
    const queued = await waitFor(
      () => pendingRequests(metricsBase, 'slow_fp32'),
      (q) => q === 1,
    );
    assert.equal(queued, 1, 'one request queued behind the running one');
    run.kill('SIGTERM');
    const exitedAt = run.exited.then(() => performance.now());
    const stopping = await notes.first('STOPPING=1');
    assert.ok(stopping !== undefined, 'STOPPING=1 arrives');
    assert.match(statusOf(stopping) ?? '', /^draining/);
    const answers = await Promise.all(inflight);
    for (const a of answers) {
      assert.ok(a !== 'dropped', 'requests in flight at SIGTERM are answered');
      assert.equal(a.status, 200);
      assert.ok(
        stopping.at < a.at,
        'STOPPING=1 arrived before the drain answered the last request',
      );
    }
    assert.equal(await run.exited, 0);
    assert.ok(stopping.at < (await exitedAt), 'STOPPING=1 arrived before the process exited');
    assert.ok(
      notes.received.every((n) => n.text.split('\n').every((l) => /^[A-Z_]+=/.test(l))),
      'every line is KEY=value',
    );
  });

  void it('no READY=1 while a failed model keeps the server unready (strict readiness)', async () => {
    const { run, notes } = await start(
      [`--model-repository=${badRepo}`, '--exit-on-error=false'],
      // The watchdog belongs to another process (say, a parent that passed its environment on).
      { WATCHDOG_USEC: String(WATCHDOG_USEC), WATCHDOG_PID: '1' },
    );
    const { base } = await run.ports();
    const status = await waitFor(
      () => notes.received.map(statusOf).find((s) => s?.startsWith('not ready')),
      (s) => s !== undefined,
    );
    assert.equal(
      status?.replace(/ on .*/, ''),
      'not ready: serving 2 models (1 ready, 1 unavailable)',
    );
    assert.equal(await readyStatus(base), 503);
    // A few status checks later, still no READY=1, and no watchdog pings for someone else's PID.
    await new Promise((r) => setTimeout(r, 1200));
    assert.deepEqual(notes.with('READY=1'), []);
    assert.deepEqual(notes.with('WATCHDOG=1'), []);
    run.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });

  void it('READY=1 with a failed model when the readiness rule allows it', async () => {
    const { run, notes } = await start([
      `--model-repository=${badRepo}`,
      '--exit-on-error=false',
      '--strict-readiness=false',
    ]);
    const ready = await notes.first('READY=1');
    assert.ok(ready !== undefined, `READY=1 arrives:\n${run.lines.join('\n')}`);
    const { base } = await run.ports();
    assert.equal(await readyStatus(base), 200);
    assert.equal(
      statusOf(ready)?.replace(/ on .*/, ''),
      'serving 2 models (1 ready, 1 unavailable)',
    );
    run.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });

  void it('a failed start says why in STATUS and exits 1 without READY=1', async () => {
    const { run, notes } = await start([`--model-repository=${badRepo}`]);
    assert.equal(await run.exited, 1);
    const failed = await waitFor(
      () => notes.received.map(statusOf).find((s) => s?.startsWith('start-up failed')),
      (s) => s !== undefined,
      5000,
    );
    assert.match(failed ?? '', /^start-up failed: failed to load 'bad_truncated'/);
    assert.deepEqual(notes.with('READY=1'), []);
  });

  void it('an abstract NOTIFY_SOCKET is refused with a log line; the server runs', async () => {
    const run = runWithEnv([`--model-repository=${badRepo}`, '--exit-on-error=false'], {
      NOTIFY_SOCKET: '@infernode-test',
    });
    runs.push(run);
    const { base } = await run.ports();
    assert.equal((await fetch(`${base}/v2/health/live`)).status, 200);
    assert.ok(
      run.lines.some(
        (l) => l.includes('systemd notifications unavailable') && l.includes('filesystem path'),
      ),
      run.lines.join('\n'),
    );
    run.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  });
});
