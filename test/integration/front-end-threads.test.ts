// --http-thread-count: several threads accept HTTP and WebSocket connections on one port and hand
// decoded requests to the main thread, which batches them together. Checked on a real server with
// real worker threads and ORT sessions, on each front end that can share its port here (uWS; node:http
// from Node 22.12), and the one-thread fallback where it cannot. The rest of the integration suite
// runs with two threads too (INFERNODE_TEST_HTTP_THREADS=2 in .ci/run).

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InferenceClient } from '../../src/client/inference-client.js';
import { freePort } from '../../src/http/free-port.js';
import { reusePortUnsupported } from '../../src/http/select-front-end.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { mlpReference } from '../helpers/mlp-reference.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { logged, metric, waitFor } from '../helpers/wait-for.js';

const FRONT_ENDS = [
  {
    name: 'uws',
    choice: 'uws' as const,
    skip: loadUws().ok ? false : 'uWS binary not available here',
  },
  {
    name: 'node-http',
    choice: 'node' as const,
    skip: reusePortUnsupported('node-http') ?? false,
  },
];

const CLIENTS = 48;

function mlpInput(client: number): Float32Array {
  return Float32Array.from({ length: 784 }, (_, i) => Math.cos(client * 3.7 + i * 0.02));
}

/** One mlp request on a connection of its own, checked against the reference. */
async function inferMlp(base: string, client: number, model = 'mlp'): Promise<void> {
  const x = mlpInput(client);
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({
      id: String(client),
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: [...x] }],
    }),
  });
  const json = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(json));
  assert.equal(json.id, String(client));
  const ref = mlpReference(x);
  json.outputs[0].data.forEach((v: number, i: number) =>
    assert.ok(Math.abs(v - (ref[i] as number)) < 1e-3, `client ${client} [${i}]: ${v}`),
  );
}

/** An unlabelled metric's value (wait-for.ts's `metric` reads labelled samples). */
async function plainMetric(metricsBase: string, name: string): Promise<number> {
  const text = await (await fetch(`${metricsBase}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ').pop());
}

async function mlpStats(base: string, model = 'mlp'): Promise<any> {
  const res = await fetch(`${base}/v2/models/${model}/stats`, { headers: { connection: 'close' } });
  return ((await res.json()) as any).model_stats[0];
}

for (const fe of FRONT_ENDS) {
  void describe(`front-end threads on ${fe.name}`, { skip: fe.skip }, () => {
    let repo: string;
    let t: TestServer;
    before(async () => {
      repo = await tempRepository();
      await copyModel(repo, 'mlp');
      // mlp_gather runs once CLIENTS requests are queued (its preferred batch size), whatever
      // threads they came through, or after 20 s: one batch of all of them, however slowly the
      // connections are accepted on a loaded machine. One instance: with two idle ones the batcher
      // shares the queued rows between them (24 each), and 48 is never formed.
      const gather = await copyModel(repo, 'mlp', 'mlp_gather');
      const config = path.join(gather, 'config.pbtxt');
      await writeFile(
        config,
        (await readFile(config, 'utf8'))
          .replace(/name: "mlp"/, 'name: "mlp_gather"')
          .replace(/instance_group \[[^\]]*\]/, 'instance_group [ { count: 1, kind: KIND_CPU } ]')
          .replace(
            'dynamic_batching { }',
            `dynamic_batching { preferred_batch_size: [ ${CLIENTS} ] ` +
              'max_queue_delay_microseconds: 20000000 }',
          ),
      );
      t = await startTestServer({
        modelRepositories: [repo],
        httpFrontEnd: fe.choice,
        httpThreadCount: 3,
      });
    });
    after(async () => {
      await t.close();
      await rm(repo, { recursive: true, force: true });
    });

    void it('listens on one port from three threads and says so', async () => {
      assert.equal(t.server.httpThreads(), 3);
      await logged(t.logs, 'on 3 threads');
      assert.equal(await plainMetric(t.metricsBase, 'infernode_frontend_threads'), 3);
    });

    void it('batches requests from every thread together; each answer is its own', async () => {
      const before = await mlpStats(t.base, 'mlp_gather');
      const handedBefore = await Promise.all(
        ['1', '2'].map((k) =>
          metric(t.metricsBase, 'infernode_frontend_thread_requests_total', `thread="${k}"`),
        ),
      );
      await Promise.all(
        Array.from({ length: CLIENTS }, (_, c) => inferMlp(t.base, c, 'mlp_gather')),
      );
      const s = await mlpStats(t.base, 'mlp_gather');
      const handed = await Promise.all(
        ['1', '2'].map((k) =>
          metric(t.metricsBase, 'infernode_frontend_thread_requests_total', `thread="${k}"`),
        ),
      );
      const perThread = handed.map((n, k) => n - (handedBefore[k] ?? 0));
      const byMain = CLIENTS - perThread.reduce((a, b) => a + b, 0);
      // 48 connections spread by the kernel's hash over three listeners: each gets some.
      assert.ok(
        perThread.every((n) => n > 0) && byMain > 0,
        `requests per thread: main ${byMain}, others ${perThread.join(', ')}`,
      );
      const inferences = s.inference_count - before.inference_count;
      const executions = s.execution_count - before.execution_count;
      assert.equal(inferences, CLIENTS, 'the model statistics count every thread’s requests');
      // A batch larger than any one thread's share holds requests from several threads.
      const largest = Math.max(...s.batch_stats.map((b: any) => b.batch_size));
      const busiest = Math.max(byMain, ...perThread);
      assert.ok(
        largest > busiest,
        `largest batch ${largest} rows, busiest thread ${busiest} requests, ` +
          `${executions} executions: ${JSON.stringify(s.batch_stats)}`,
      );
    });

    void it('serves metadata, the repository index and WebSocket inference from every thread', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, async () => {
          const res = await fetch(`${t.base}/v2/models/mlp`, { headers: { connection: 'close' } });
          return [res.status, ((await res.json()) as any).name];
        }),
      );
      assert.deepEqual(
        results,
        Array.from({ length: 12 }, () => [200, 'mlp']),
      );
      const index = await postJson(`${t.base}/v2/repository/index`, {}, { connection: 'close' });
      assert.equal(index.status, 200);
      assert.ok(index.json.some((e: any) => e.name === 'mlp' && e.state === 'READY'));
      const missing = await postJson(`${t.base}/v2/models/nope/infer`, {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1], data: [1] }],
      });
      assert.equal(missing.status, 404);
      assert.match(missing.json.error, /unknown model: 'nope'/);

      const clients = Array.from(
        { length: 6 },
        () => new InferenceClient({ url: t.base, protocol: 'ws', timeoutMs: 30_000 }),
      );
      try {
        const answers = await Promise.all(
          clients.map((client, c) =>
            client.infer('mlp', [
              { name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: mlpInput(c) },
            ]),
          ),
        );
        answers.forEach((a, c) => {
          const ref = mlpReference(mlpInput(c));
          const out = a.outputs[0]?.data as Float32Array;
          ref.forEach((v, i) => assert.ok(Math.abs((out[i] as number) - v) < 1e-3));
        });
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    });

    void it('replaces a thread that fails and counts it; the other threads keep serving', async () => {
      const threads = t.server.frontEndThreads;
      assert.ok(threads !== undefined);
      const before = await plainMetric(t.metricsBase, 'infernode_frontend_restarts_total');
      await threads.failThread(1);
      await logged(t.logs, 'front-end thread 1 exited (code 1)');
      // Meanwhile every request still finds a listener: the main thread's and thread 2's.
      await Promise.all(Array.from({ length: 8 }, (_, c) => inferMlp(t.base, c)));
      const restarts = await waitFor(
        () => plainMetric(t.metricsBase, 'infernode_frontend_restarts_total'),
        (n) => n > before,
      );
      assert.equal(restarts, before + 1);
      await logged(t.logs, 'front-end thread 1 replaced');
      assert.equal(
        await waitFor(
          () => t.server.httpThreads(),
          (n) => n === 3,
        ),
        3,
      );
      await Promise.all(Array.from({ length: 16 }, (_, c) => inferMlp(t.base, c)));
    });
  });
}

void describe('front-end threads through the infernode command', () => {
  void it('drains on SIGTERM: requests in flight on every thread are answered, exit status 0', async () => {
    const repo = await tempRepository();
    const mlp = await copyModel(repo, 'mlp');
    const config = path.join(mlp, 'config.pbtxt');
    await writeFile(
      config,
      (await readFile(config, 'utf8')).replace(
        'dynamic_batching { }',
        'dynamic_batching { preferred_batch_size: [ 64 ] max_queue_delay_microseconds: 3000000 }',
      ),
    );
    const server = await spawnServer([`--model-repository=${repo}`, '--http-thread-count=2']);
    try {
      // All 16 wait in the queue (for company, up to 3 s) when the signal comes: the drain must
      // answer every one. (A connection still in a listener's accept queue when the listeners
      // close would be reset, with one thread or several: so the signal waits until all arrived.)
      const inFlight = Array.from({ length: 16 }, (_, c) => inferMlp(server.base, c));
      const queued = await waitFor(
        () => metric(server.metricsBase, 'nv_inference_pending_request_count', 'model="mlp"'),
        (n) => n === 16,
        2500,
      );
      assert.equal(queued, 16);
      server.child.kill('SIGTERM');
      await Promise.all(inFlight);
      assert.equal(await server.exited, 0, server.lines.join('\n'));
      const started = server.lines.find((l) => l.includes('"httpPort"')) ?? '';
      const expected = reusePortUnsupported(loadUws().ok ? 'uws' : 'node-http');
      if (expected === undefined) assert.match(started, /on 2 threads/);
      else {
        assert.ok(
          server.lines.some((l) => l.includes('--http-thread-count=2') && l.includes('one thread')),
          server.lines.join('\n'),
        );
      }
    } finally {
      server.child.kill('SIGKILL');
      await rm(repo, { recursive: true, force: true });
    }
  });
});

void describe('--reuse-http-port', () => {
  void it('lets two infernode processes serve one HTTP port', async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    const port = await freePort('127.0.0.1');
    const args = [`--model-repository=${repo}`, '--reuse-http-port', '--http-thread-count=1'];
    const first = await spawnServer([...args, `--http-port=${port}`]);
    const second = await spawnServer([...args, `--http-port=${port}`]).catch((e: unknown) => {
      first.child.kill('SIGKILL');
      throw e;
    });
    try {
      const pids = new Set<number>();
      for (const server of [first, second]) {
        const line = server.lines.find((l) => l.includes('"httpPort"')) ?? '{}';
        const started = JSON.parse(line) as { httpPort?: number; pid?: number };
        assert.equal(started.httpPort, port, 'both listen on the same port');
        pids.add(started.pid ?? 0);
      }
      assert.equal(pids.size, 2);
      const answers = await Promise.all(
        Array.from({ length: 16 }, async () => {
          const res = await fetch(`http://127.0.0.1:${port}/v2/health/ready`, {
            headers: { connection: 'close' },
          });
          return res.status;
        }),
      );
      assert.deepEqual(
        answers,
        Array.from({ length: 16 }, () => 200),
      );
    } finally {
      first.child.kill('SIGTERM');
      second.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
      assert.equal(await second.exited, 0);
      await rm(repo, { recursive: true, force: true });
    }
  });
});
