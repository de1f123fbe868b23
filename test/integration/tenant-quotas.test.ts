// Per-tenant quotas (--tenant-header, --quota-file) against a real server: over quota, HTTP answers
// 429 with Retry-After, gRPC RESOURCE_EXHAUSTED and WebSocket an error frame with its own code;
// buckets refill; in_flight counts requests until they are answered, however they end; per-model
// overrides; unknown tenants; reloads (SIGHUP, a changed file, a bad file); the metrics' label cap;
// HTTP on the main thread refuses before it parses the body.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import { msgpackClientCodec } from '../../src/client/client-codecs.js';
import { tensor } from '../../src/client/client-tensor.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { grpcClient } from '../helpers/grpc-client.js';
import { copySlowModel, slowRequest } from '../helpers/slow-model-timing.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { metric, waitFor } from '../helpers/wait-for.js';
import { RawSocket } from './websocket-raw-socket.js';

const HEADER = 'X-Tenant';

const SIMPLE_BODY = JSON.stringify({
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: new Array<number>(16).fill(2) },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: new Array<number>(16).fill(1) },
  ],
});

const GRPC_REQUEST = {
  model_name: 'simple',
  inputs: [
    {
      name: 'INPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      contents: { int_contents: new Array(16).fill(2) },
    },
    {
      name: 'INPUT1',
      datatype: 'INT32',
      shape: [1, 16],
      contents: { int_contents: new Array(16).fill(1) },
    },
  ],
};

function simpleFrame(id: number): Uint8Array {
  return msgpackClientCodec.encodeRequest(
    id,
    'simple',
    [
      tensor('INPUT0', 'INT32', [1, 16], new Int32Array(16).fill(2)),
      tensor('INPUT1', 'INT32', [1, 16], new Int32Array(16).fill(1)),
    ],
    { outputs: ['OUTPUT0'] },
  );
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly json: any;
}

async function infer(t: TestServer, tenant: string | undefined, model = 'simple'): Promise<Answer> {
  const res = await fetch(`${t.base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(tenant !== undefined && { [HEADER]: tenant }),
    },
    body: SIMPLE_BODY,
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

const QUOTAS = {
  default: { rps: 1000, in_flight: 100 },
  tenants: {
    // Two at once, then one every 2 s.
    slowpoke: { rps: 0.5, burst: 2 },
    // Plenty in general, but `simple` only twice.
    picky: { rps: 1000, models: { simple: { rps: 0.01, burst: 2 } } },
    refill: { rps: 2, burst: 1 },
    grpc: { rps: 0.01, burst: 1 },
    ws: { rps: 0.01, burst: 1 },
    busy: { in_flight: 2 },
    queued: { queue: 0.25 },
  },
};

void describe('tenant quotas', () => {
  let t: TestServer;
  let dir: string;
  let quotaFile: string;

  before(async () => {
    dir = await tempRepository();
    await copyModel(dir, 'simple');
    await copyModel(dir, 'failing_run');
    // One instance, one request at a time, a queue of 8: requests stay in flight while it runs.
    await copySlowModel(
      dir,
      'slow',
      'max_queue_delay_microseconds: 0 default_queue_policy { max_queue_size: 8 }',
    );
    quotaFile = path.join(dir, 'quotas.json');
    await writeFile(quotaFile, JSON.stringify(QUOTAS, null, 2));
    t = await startTestServer({
      modelRepositories: [dir],
      tenantHeader: HEADER.toLowerCase(),
      quotaFile,
      tenantMetricsMax: 12,
    });
  });
  after(async () => {
    await t.close();
  });

  void it('HTTP: over its rate a tenant gets 429, Retry-After and an error naming tenant, limit and model', async () => {
    assert.equal((await infer(t, 'slowpoke')).status, 200);
    assert.equal((await infer(t, 'slowpoke')).status, 200);
    const refused = await infer(t, 'slowpoke');
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfter, '2');
    assert.match(
      refused.json.error,
      /tenant 'slowpoke' is over its quota of 0.5 requests per second for model 'simple'/,
    );
    // Another tenant is not affected.
    assert.equal((await infer(t, 'someone-else')).status, 200);
    assert.equal(
      await metric(
        t.metricsBase,
        'infernode_tenant_throttled_total',
        'tenant="slowpoke"',
        'reason="rate"',
      ),
      1,
    );
    assert.equal(
      await metric(t.metricsBase, 'infernode_tenant_admitted_total', 'tenant="slowpoke"'),
      2,
    );
  });

  void it('the bucket refills at rps', async () => {
    assert.equal((await infer(t, 'refill')).status, 200);
    assert.equal((await infer(t, 'refill')).status, 429);
    await sleep(600); // 2 rps: a token every 500 ms
    assert.equal((await infer(t, 'refill')).status, 200);
  });

  void it('a per-model override limits that model only', async () => {
    assert.equal((await infer(t, 'picky')).status, 200);
    assert.equal((await infer(t, 'picky')).status, 200);
    const refused = await infer(t, 'picky');
    assert.equal(refused.status, 429);
    assert.match(refused.json.error, /0.01 requests per second for model 'simple'/);
    const { body, headers } = slowRequest(1);
    const other = await fetch(`${t.base}/v2/models/slow/infer`, {
      method: 'POST',
      headers: { ...headers, [HEADER]: 'picky' },
      body,
    });
    assert.equal(other.status, 200);
  });

  void it('gRPC: over its rate a tenant gets RESOURCE_EXHAUSTED (unary and stream)', async () => {
    const c = grpcClient(t.grpcTarget);
    try {
      await c.call('ModelInfer', GRPC_REQUEST, { 'x-tenant': 'grpc' });
      await assert.rejects(c.call('ModelInfer', GRPC_REQUEST, { 'x-tenant': 'grpc' }), (e: any) => {
        assert.equal(e.code, status.RESOURCE_EXHAUSTED);
        assert.match(e.details, /tenant 'grpc' is over its quota/);
        // The delay as trailing metadata: whole seconds as HTTP's header, and milliseconds.
        const [s] = e.metadata.get('retry-after');
        const [ms] = e.metadata.get('retry-after-ms');
        assert.ok(Number(s) >= 1, `retry-after ${s}`);
        assert.ok(Number(ms) > 0 && Number(ms) <= Number(s) * 1000, `retry-after-ms ${ms}`);
        return true;
      });
      // A stream checks each request on it: the stream's answer is an error message, the stream goes on.
      const { Metadata } = await import('@grpc/grpc-js');
      const md = new Metadata();
      md.set('x-tenant', 'grpc');
      const stream = c.stub.ModelStreamInfer(md);
      const answers: any[] = [];
      stream.on('data', (m: any) => answers.push(m));
      stream.write(GRPC_REQUEST);
      stream.end();
      await new Promise((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('error', reject);
      });
      assert.equal(answers.length, 1);
      assert.match(answers[0].error_message, /tenant 'grpc' is over its quota/);
    } finally {
      c.close();
    }
  });

  void it('WebSocket: the upgrade names the tenant; over quota a frame gets TENANT_RATE_LIMITED', async () => {
    const raw = await RawSocket.open(
      `${t.base.replace('http', 'ws')}${WS_PATH}`,
      MSGPACK_PROTOCOL,
      {
        [HEADER]: 'ws',
      },
    );
    try {
      raw.send(simpleFrame(1));
      const first = msgpackClientCodec.decodeReply(await raw.nextFrame());
      assert.ok('result' in first, JSON.stringify(first));
      raw.send(simpleFrame(2));
      const second = msgpackClientCodec.decodeReply(await raw.nextFrame());
      assert.ok('error' in second, JSON.stringify(second));
      assert.equal(second.error.code, 'TENANT_RATE_LIMITED');
      assert.match(second.error.message, /tenant 'ws' .* model 'simple'; retry after \d+ s/);
      // The delay as a field, so a client need not parse the message.
      const retryMs = second.error.retryAfterMs;
      assert.ok(retryMs !== undefined && retryMs > 0, JSON.stringify(second));
    } finally {
      raw.close();
    }
  });

  void it('a server error on gRPC and WebSocket is logged with the tenant, as on HTTP', async () => {
    const input = new Float32Array(4).fill(1);
    const c = grpcClient(t.grpcTarget);
    try {
      const request = {
        model_name: 'failing_run',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4] }],
        raw_input_contents: [Buffer.from(input.buffer)],
      };
      await assert.rejects(c.call('ModelInfer', request, { 'x-tenant': 'logged-grpc' }));
    } finally {
      c.close();
    }
    const raw = await RawSocket.open(
      `${t.base.replace('http', 'ws')}${WS_PATH}`,
      MSGPACK_PROTOCOL,
      {
        [HEADER]: 'logged-ws',
      },
    );
    try {
      raw.send(
        msgpackClientCodec.encodeRequest(
          1,
          'failing_run',
          [tensor('INPUT0', 'FP32', [1, 4], input)],
          {},
        ),
      );
      const reply = msgpackClientCodec.decodeReply(await raw.nextFrame());
      assert.ok('error' in reply, JSON.stringify(reply));
    } finally {
      raw.close();
    }
    const logged = (tenant: string) =>
      t.logs.map((l) => JSON.parse(l)).find((r) => r.level === 50 && r.tenant === tenant);
    const both = await waitFor(
      () => [logged('logged-grpc'), logged('logged-ws')],
      (rs) => rs.every((r) => r !== undefined),
    );
    assert.equal(both[0]?.rpc, 'ModelInfer', t.logs.join('\n'));
    assert.equal(both[1]?.path, '/v2/ws', t.logs.join('\n'));
  });

  void it('in_flight counts requests until answered, and nothing leaks when they fail or are cancelled', async () => {
    const slow = (signal?: AbortSignal): Promise<number> => {
      const { body, headers } = slowRequest(16);
      return fetch(`${t.base}/v2/models/slow/infer`, {
        method: 'POST',
        headers: { ...headers, [HEADER]: 'busy' },
        body,
        ...(signal !== undefined && { signal }),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => -1,
      );
    };
    const statuses = await Promise.all([slow(), slow(), slow()]);
    assert.deepEqual(
      [...statuses].sort(),
      [200, 200, 429],
      `two of three concurrent requests admitted: ${statuses.join(', ')}`,
    );
    // Cancelled while queued or running: released all the same (a running one once its run ends:
    // it holds the instance until then).
    const controllers = [new AbortController(), new AbortController()];
    const cancelled = controllers.map((c) => slow(c.signal));
    await waitFor(
      () => metric(t.metricsBase, 'infernode_tenant_in_flight', 'tenant="busy"'),
      (n) => n === 2,
    );
    for (const c of controllers) c.abort();
    await Promise.all(cancelled);
    const left = await waitFor(
      () => metric(t.metricsBase, 'infernode_tenant_in_flight', 'tenant="busy"'),
      (n) => n === 0,
      60_000,
    );
    assert.equal(left, 0);
    // A request that fails validation is answered too.
    const bad = await fetch(`${t.base}/v2/models/slow/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [HEADER]: 'busy' },
      body: '{"inputs": []}',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      (await Promise.all([slow(), slow()])).sort(),
      [200, 200],
      'both places free again',
    );
  });

  void it("a tenant's share of the queue: queue × max_queue_size places", async () => {
    // max_queue_size 8 × 0.25 = 2 requests of `queued` on `slow` at once.
    const { body, headers } = slowRequest(16);
    const one = (): Promise<Response> =>
      fetch(`${t.base}/v2/models/slow/infer`, {
        method: 'POST',
        headers: { ...headers, [HEADER]: 'queued' },
        body,
      });
    const answers = await Promise.all([one(), one(), one()]);
    const codes = answers.map((r) => r.status).sort();
    assert.deepEqual(codes, [200, 200, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    assert.match(((await refused.json()) as { error: string }).error, /2 of the queue's 8 places/);
  });

  void it('unknown tenants get the default; a request without the header is anonymous', async () => {
    assert.equal((await infer(t, 'never-heard-of')).status, 200);
    assert.equal((await infer(t, undefined)).status, 200);
    assert.equal(
      await metric(t.metricsBase, 'infernode_tenant_admitted_total', 'tenant="anonymous"'),
      1,
    );
  });

  void it('metrics fold tenants beyond --tenant-metrics-max into "other"', async () => {
    for (let i = 0; i < 15; i++) assert.equal((await infer(t, `many-${i}`)).status, 200);
    const text = await (await fetch(`${t.metricsBase}/metrics`)).text();
    const labels = new Set(
      [...text.matchAll(/^infernode_tenant_admitted_total\{tenant="([^"]*)"\}/gm)].map((m) => m[1]),
    );
    assert.ok(labels.size <= 13, `at most 12 tenants and "other": ${[...labels].join(', ')}`);
    assert.ok(labels.has('other'));
  });

  void it('reloads on SIGHUP and on change while requests run; a bad file keeps the quotas', async () => {
    // Requests keep running through every reload; none may fail.
    let stop = false;
    const failures: number[] = [];
    const load = (async () => {
      while (!stop) {
        const a = await infer(t, 'steady');
        if (a.status !== 200) failures.push(a.status);
      }
    })();
    try {
      assert.equal((await infer(t, 'late')).status, 200);
      // On change: `late` gets a quota of one request, then none for 100 s.
      await writeFile(
        quotaFile,
        JSON.stringify({
          ...QUOTAS,
          tenants: { ...QUOTAS.tenants, late: { rps: 0.01, burst: 1 } },
        }),
      );
      const refusedAt = await waitFor(
        async () => (await infer(t, 'late')).status,
        (s) => s === 429,
      );
      assert.equal(refusedAt, 429);
      // A bad file: logged, and the quotas in force stay.
      const before = t.logs.length;
      await writeFile(quotaFile, '{\n  "tenants": {\n    "late": { "rps": -1 }\n  }\n}\n');
      await waitFor(
        () => t.logs.slice(before).some((l) => l.includes('tenant quotas not reloaded')),
        (x) => x,
      );
      assert.ok(t.logs.slice(before).some((l) => l.includes('$.tenants[\\"late\\"].rps')));
      assert.equal((await infer(t, 'late')).status, 429);
      // SIGHUP: an unlimited `late` again.
      await writeFile(quotaFile, JSON.stringify(QUOTAS));
      await sleep(300); // let the change's own reload pass first
      const n = t.logs.length;
      process.kill(process.pid, 'SIGHUP');
      await waitFor(
        () => t.logs.slice(n).some((l) => l.includes('tenant quotas reloaded')),
        (x) => x,
      );
      assert.equal((await infer(t, 'late')).status, 200);
    } finally {
      stop = true;
      await load;
    }
    assert.deepEqual(failures, []);
  });
});

void describe('tenant quotas with refuse', () => {
  let t: TestServer;
  before(async () => {
    const dir = await tempRepository();
    await copyModel(dir, 'simple');
    const quotaFile = path.join(dir, 'quotas.json');
    await writeFile(quotaFile, JSON.stringify({ unknown: 'refuse', tenants: { known: {} } }));
    t = await startTestServer({ modelRepositories: [dir], tenantHeader: 'x-tenant', quotaFile });
  });
  after(async () => {
    await t.close();
  });

  void it('refuses unknown tenants and requests without the header with 403 TENANT_UNKNOWN', async () => {
    assert.equal((await infer(t, 'known')).status, 200);
    const unknown = await infer(t, 'stranger');
    assert.equal(unknown.status, 403);
    assert.match(unknown.json.error, /tenant 'stranger' is not in the quota file/);
    assert.equal((await infer(t, undefined)).status, 403);
  });
});

void describe('tenant quotas before the body', () => {
  let t: TestServer;
  before(async () => {
    const dir = await tempRepository();
    await copyModel(dir, 'simple');
    const quotaFile = path.join(dir, 'quotas.json');
    const tenants = { early: { rps: 0.01, burst: 1 }, once: { in_flight: 1 } };
    await writeFile(quotaFile, JSON.stringify({ unknown: 'refuse', tenants }));
    // One thread: HTTP on the main thread admits before it parses the body, where the quotas are.
    // A connection on a front-end thread parses first (see remote-data-plane.ts), so with several
    // threads which answer a bad body over quota gets would depend on where its connection landed.
    t = await startTestServer({
      modelRepositories: [dir],
      tenantHeader: 'x-tenant',
      quotaFile,
      httpThreadCount: 1,
    });
  });
  after(async () => {
    await t.close();
  });

  const NOT_JSON = '{"inputs": [';
  const post = (tenant: string, body: string, model = 'simple', encoding?: string) =>
    fetch(`${t.base}/v2/models/${model}/infer`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-tenant': tenant,
        ...(encoding !== undefined && { 'content-encoding': encoding }),
      },
      body,
    }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after') }));
  const tenantMetric = (name: string, tenant: string, ...labels: string[]) =>
    metric(t.metricsBase, `infernode_tenant_${name}`, `tenant="${tenant}"`, ...labels);

  void it('HTTP refuses over quota before parsing the body, and counts the refusal once', async () => {
    // Admitted (its one token), then the body is refused.
    assert.equal((await post('early', NOT_JSON)).status, 400);
    // Not parsed: the same body is now refused for the quota, with the bucket's Retry-After.
    assert.deepEqual(await post('early', NOT_JSON), { status: 429, retryAfter: '100' });
    assert.equal((await post('stranger', NOT_JSON)).status, 403);
    // A model the server does not know is 404 whatever the quota.
    assert.equal((await post('early', SIMPLE_BODY, 'no_such_model')).status, 404);
    assert.equal(await tenantMetric('throttled_total', 'early', 'reason="rate"'), 1);
    assert.equal(await tenantMetric('admitted_total', 'early'), 1);
  });

  void it('a body refused after admission releases it: nothing stays in flight', async () => {
    // in_flight 1: a leaked admission would refuse every later request of `once`.
    assert.equal((await post('once', NOT_JSON)).status, 400);
    assert.equal((await post('once', 'not gzip data', 'simple', 'gzip')).status, 400);
    const misnamed = SIMPLE_BODY.replace('INPUT1', 'INPUT9');
    assert.equal((await post('once', misnamed)).status, 400, 'refused by validation');
    assert.equal(await tenantMetric('admitted_total', 'once'), 3);
    assert.equal(await tenantMetric('in_flight', 'once'), 0);
    assert.equal((await post('once', SIMPLE_BODY)).status, 200);
    assert.equal(await tenantMetric('in_flight', 'once'), 0);
  });
});

void describe('tenant quotas with front-end threads', () => {
  let t: TestServer;
  before(async () => {
    const dir = await tempRepository();
    await copyModel(dir, 'simple');
    const quotaFile = path.join(dir, 'quotas.json');
    await writeFile(quotaFile, JSON.stringify({ tenants: { a: { rps: 0.01, burst: 10 } } }));
    t = await startTestServer({
      modelRepositories: [dir],
      tenantHeader: 'x-tenant',
      quotaFile,
      httpThreadCount: 2,
    });
  });
  after(async () => {
    await t.close();
  });

  void it("the limit is the process's, whichever thread a connection lands on", async () => {
    // Each request on a connection of its own, so both threads take some.
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${t.base}/v2/models/simple/infer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [HEADER]: 'a', connection: 'close' },
          body: SIMPLE_BODY,
        }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    assert.ok(
      t.logs.some((l) => l.includes('on 2 threads')),
      'served on two threads (else the test proves nothing)',
    );
    assert.equal(answers.filter((s) => s === 200).length, 10);
    assert.equal(answers.filter((s) => s === 429).length, 20);
  });
});
