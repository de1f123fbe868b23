// The `infernode` command as an operator runs it: flags, exit codes, and SIGTERM draining
// in-flight requests (reliability table rows 1, 2, 5 and 6). A drain cut short (the exit timeout,
// a second signal) is in shutdown-stop.test.ts, the drain delay and keep-alive connections in
// shutdown-drain.test.ts.
//
// The signal test needs requests still in flight when the signal lands. How long slow_fp32 runs
// differs several-fold between machines, so the file times it first and sizes each request from
// that; and it sends the signal once the server's pending gauge shows every request arrived and
// queued behind the first, rather than after a fixed sleep.

import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runCli, spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import {
  copySlowModel,
  inferSlow,
  measureSlowModel,
  type SlowModelTiming,
  type SlowReply,
} from '../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer } from '../helpers/test-server.js';
import { allQueued, logged } from '../helpers/wait-for.js';

/**
 * The least time each slow request runs, by the timing taken at the start: long enough that all
 * of a test's requests reach the server while the first still runs and a signal lands before
 * the second starts, with room for a machine whose load changes meanwhile; short enough that the
 * one running at a signal ends well inside the bounded drain's 2 s.
 */
const REQUEST_MS = 250;

/** Sends `n` slow requests at once; each settles as its reply, or 'dropped' if the server went. */
function send(s: SpawnedServer, n: number, rows: number): Promise<SlowReply | 'dropped'>[] {
  return Array.from({ length: n }, (_, k) =>
    inferSlow(s.base, 'slow_fp32', rows, { seed: k }).catch(() => 'dropped' as const),
  );
}

void describe('infernode command', () => {
  let repo: string;
  let badRepo: string;
  let timing: SlowModelTiming;
  let rows: number;
  const servers: SpawnedServer[] = [];
  /** A server for one test; one a failed assertion left running is killed after the file. */
  const serve = async (args: string[]): Promise<SpawnedServer> => {
    const s = await spawnServer([`--model-repository=${repo}`, ...args]);
    servers.push(s);
    return s;
  };
  before(async () => {
    repo = await tempRepository();
    // The fixture's settings (one instance, one thread, no batcher: requests run one at a time)
    // with room for requests as large as the timing asks for.
    await copySlowModel(repo, 'slow_fp32');
    await copyModel(repo, 'simple');
    badRepo = await tempRepository();
    await copyModel(badRepo, 'simple');
    await copyModel(badRepo, 'bad_truncated');
    // Timed on a server in this process: the same model, settings and machine as the spawned ones.
    const probe = await startTestServer({ modelRepositories: [repo] });
    try {
      timing = await measureSlowModel(probe, 'slow_fp32');
    } finally {
      await probe.close();
    }
    rows = timing.rowsFor(REQUEST_MS);
  });
  after(async () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    }
    await rm(repo, { recursive: true, force: true });
    await rm(badRepo, { recursive: true, force: true });
  });

  void it('prints help and rejects unknown flags with exit code 2', async () => {
    const help = runCli(['--help']);
    assert.equal(await help.exited, 0);
    assert.ok(help.lines.some((l) => l.includes('--model-repository')));
    const bad = runCli(['--model-repository=x', '--no-such-flag']);
    assert.equal(await bad.exited, 2);
    assert.ok(bad.lines.some((l) => l.includes('unknown flag --no-such-flag')));
    const missing = runCli([]);
    assert.equal(await missing.exited, 2);
  });

  void it('answers --help and a flag error without loading the server (no gRPC module)', async () => {
    // NODE_DEBUG=module logs each CommonJS file node loads: the server needs @grpc/grpc-js, the
    // flags do not. Some file is always logged, so an empty log cannot pass for one without gRPC.
    const env = { ...process.env, NODE_DEBUG: 'module' };
    const loadsOf = (lines: string[]) => lines.filter((l) => /^MODULE \d+: load "/.test(l));
    for (const [args, status] of [
      [['--help'], 0],
      [['--model-repository=x', '--no-such-flag'], 2],
    ] as const) {
      const run = runCli(args, env);
      assert.equal(await run.exited, status);
      const loads = loadsOf(run.lines);
      assert.ok(loads.length > 0, 'NODE_DEBUG=module logged the files loaded');
      const grpc = loads.filter((l) => l.includes('/@grpc/grpc-js/'));
      assert.deepEqual(grpc, [], `${args.join(' ')} loaded the gRPC server's modules`);
    }
  });

  void it('exits non-zero when a model fails to load and --exit-on-error is on (default)', async () => {
    const run = runCli([
      `--model-repository=${badRepo}`,
      '--http-port=0',
      '--metrics-port=0',
      '--grpc-port=0',
    ]);
    assert.equal(await run.exited, 1);
    assert.ok(run.lines.some((l) => l.includes('bad_truncated')));
  });

  void it('drains in-flight requests on SIGTERM, refuses new connections, exits 0', async (c) => {
    const n = 4;
    c.diagnostic(`${timing.summary}; ${n} requests of ${rows} rows`);
    const s = await serve(['--exit-timeout-secs=20']);
    const inflight = send(s, n, rows);
    await allQueued(s.metricsBase, 'slow_fp32', n);
    s.child.kill('SIGTERM');
    // Once the server logs the drain, it is no longer ready and takes no new connections.
    await logged(s.lines, 'drain started');
    const late = await fetch(`${s.base}/v2/health/ready`).then(
      (r) => r.status,
      () => 'refused',
    );
    const lateAt = performance.now();
    assert.ok(late === 'refused' || late === 503, `new request after SIGTERM: ${late}`);
    const results = await Promise.all(inflight);
    for (const r of results) {
      assert.ok(r !== 'dropped', 'every request in flight at SIGTERM is answered');
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual(r.json.outputs[0].shape, [rows, 1024]);
    }
    assert.ok(
      results.some((r) => r !== 'dropped' && r.at > lateAt),
      'the new request was turned away while the drain still served the earlier ones',
    );
    assert.equal(await s.exited, 0);
    assert.equal(s.lines.filter((l) => l.includes('drain started')).length, 1);
    assert.ok(s.lines.some((l) => l.includes('drain finished')));
  });
});
