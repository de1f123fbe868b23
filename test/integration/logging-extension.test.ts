// Triton's logging extension end to end on a real server: GET/POST /v2/logging and gRPC
// LogSettings read and change the settings, bad values are refused with what was expected and what
// arrived (and change nothing), log_file is refused as Triton refuses it, a change shows in the
// server's own output (levels and format), a front-end thread's records follow it, and the
// 'logging' restricted category guards both transports.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseRestrictions } from '../../src/grpc/restricted-protocol.js';
import { parseApiRestrictions } from '../../src/http/restricted-apis.js';
import { reusePortUnsupported } from '../../src/http/select-front-end.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { grpcClient, type GrpcTestClient } from '../helpers/grpc-client.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

/** Front-end threads where this host can share the port (uWS, or node:http from Node 22.12). */
const THREADS = loadUws().ok || reusePortUnsupported('node-http') === undefined ? 2 : 1;

async function getLogging(t: TestServer, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.base}/v2/logging`, { headers });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

void describe('logging extension', () => {
  let t: TestServer;
  let c: GrpcTestClient;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['simple'],
      httpThreadCount: THREADS,
    });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c?.close();
    await t?.close();
  });

  const reset = {
    log_info: true,
    log_warning: true,
    log_error: true,
    log_verbose_level: 1,
    log_format: 'json',
  };

  void it('GET answers the settings in force, with Triton field names', async () => {
    const { status, json } = await getLogging(t);
    assert.equal(status, 200);
    // The test server's logger runs at verbose level 1 (helpers/test-server.ts).
    assert.deepEqual(json, { log_file: '', ...reset });
    const meta = (await (await fetch(`${t.base}/v2`)).json()) as { extensions: string[] };
    assert.ok(meta.extensions.includes('logging'));
  });

  void it('POST applies the settings it names and answers all of them', async () => {
    const r = await postJson(`${t.base}/v2/logging`, { log_warning: false, log_verbose_level: 0 });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { ...reset, log_file: '', log_warning: false, log_verbose_level: 0 });
    assert.deepEqual((await getLogging(t)).json, r.json);
    // null leaves a setting as it is (Triton), and so does an empty body.
    const same = await postJson(`${t.base}/v2/logging`, { log_info: null, log_file: null });
    assert.deepEqual(same.json, r.json);
    assert.deepEqual((await postJson(`${t.base}/v2/logging`, '')).json, r.json);
    assert.equal((await postJson(`${t.base}/v2/logging`, reset)).status, 200);
  });

  void it('refuses wrong types and values with 400, naming what was expected and what came', async () => {
    const cases: [unknown, RegExp][] = [
      [{ log_info: 'false' }, /log_info: expected a boolean, got "false"/],
      [{ log_error: 0 }, /log_error: expected a boolean, got 0/],
      [{ log_verbose_level: -1 }, /log_verbose_level: expected an integer from 0 to \d+, got -1/],
      [{ log_verbose_level: '1' }, /log_verbose_level: expected an integer .*got "1"/],
      [{ log_verbose_level: 1.5 }, /got 1.5/],
      [
        { log_format: 'xml' },
        /log_format: expected one of "json", "default", "ISO8601", got "xml"/,
      ],
      [[], /expected a JSON object, got \[\]/],
      // The valid setting before the bad one is not applied either.
      [{ log_info: false, log_warning: 'no' }, /log_warning: expected a boolean/],
    ];
    for (const [body, message] of cases) {
      const r = await postJson(`${t.base}/v2/logging`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match((r.json as { error: string }).error, message, JSON.stringify(body));
    }
    assert.equal((await postJson(`${t.base}/v2/logging`, '{"log_info":')).status, 400);
    assert.deepEqual((await getLogging(t)).json, { log_file: '', ...reset });
  });

  void it("refuses log_file over the network in Triton's words", async () => {
    const r = await postJson(`${t.base}/v2/logging`, { log_file: '/tmp/x.log', log_info: false });
    assert.equal(r.status, 501);
    assert.deepEqual(r.json, {
      error: 'log file location can not be updated through network protocol',
    });
    assert.deepEqual((await getLogging(t)).json, { log_file: '', ...reset });
  });

  void it("a change shows in the server's own output: levels, then format", async () => {
    const ready = (): number => t.logs.filter((l) => l.includes('model version ready')).length;
    const reload = async (): Promise<void> => {
      const unload = await postJson(`${t.base}/v2/repository/models/simple/unload`, {});
      assert.equal(unload.status, 200);
      const load = await postJson(`${t.base}/v2/repository/models/simple/load`, {});
      assert.equal(load.status, 200);
    };
    const before = ready();
    await postJson(`${t.base}/v2/logging`, { log_info: false });
    await reload();
    assert.equal(ready(), before, 'no info record with log_info off');
    await postJson(`${t.base}/v2/logging`, { log_info: true });
    await reload();
    assert.equal(ready(), before + 1, 'info records again with log_info on');

    await postJson(`${t.base}/v2/logging`, { log_format: 'default' });
    const line = await waitFor(
      () => t.logs.at(-1) ?? '',
      (l) => l.startsWith('I'),
    );
    assert.match(line, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ infernode\] log settings changed /);
    await postJson(`${t.base}/v2/logging`, { log_format: 'ISO8601' });
    const iso = await waitFor(
      () => t.logs.at(-1) ?? '',
      (l) => l.includes('ISO8601'),
    );
    assert.match(iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I \d+ infernode\] log settings changed /);
    await postJson(`${t.base}/v2/logging`, reset);
    const json = await waitFor(
      () => t.logs.at(-1) ?? '',
      (l) => l.startsWith('{'),
    );
    assert.equal((JSON.parse(json) as { msg: string }).msg, 'log settings changed');
  });

  void it(
    "a front-end thread's records follow a change",
    { skip: THREADS === 1 ? 'no front-end threads on this host' : false },
    async () => {
      const threads = t.server.frontEndThreads;
      assert.ok(threads !== undefined);
      const failed = (): number =>
        t.logs.filter((l) => l.includes('front-end thread failed')).length;
      const replaced = (): number =>
        t.logs.filter((l) => l.includes('front-end thread 1 replaced')).length;

      await postJson(`${t.base}/v2/logging`, { log_error: false });
      let r = replaced();
      await threads.failThread(1);
      await waitFor(replaced, (n) => n > r);
      assert.equal(failed(), 0, "the thread's error record is dropped with log_error off");

      await postJson(`${t.base}/v2/logging`, { log_error: true });
      r = replaced();
      await threads.failThread(1);
      await waitFor(replaced, (n) => n > r);
      assert.equal(
        failed(),
        1,
        `the thread's error record is written with log_error on:\n${t.logs.filter((l) => l.includes('thread')).join('\n')}`,
      );
    },
  );

  void it('gRPC LogSettings reads, updates and refuses as Triton does', async () => {
    const read = (await c.call('LogSettings', { settings: {} })) as {
      settings: Record<string, Record<string, unknown>>;
    };
    assert.equal(read.settings['log_verbose_level']?.['uint32_param'], 1);
    assert.equal(read.settings['log_format']?.['string_param'], 'json');
    assert.equal(read.settings['log_file']?.['string_param'], '');

    const updated = (await c.call('LogSettings', {
      settings: { log_verbose_level: { uint32_param: 2 }, log_warning: { bool_param: false } },
    })) as { settings: Record<string, Record<string, unknown>> };
    assert.equal(updated.settings['log_verbose_level']?.['uint32_param'], 2);
    assert.equal(updated.settings['log_warning']?.['bool_param'], false);
    assert.equal((await getLogging(t)).json['log_verbose_level'], 2, 'one set of settings');

    await assert.rejects(
      c.call('LogSettings', { settings: { log_info: { string_param: 'true' } } }),
      (e: { code: number; details: string }) =>
        e.code === 3 && /expect boolean for 'log_info', got string_param/.test(e.details),
    );
    await assert.rejects(
      c.call('LogSettings', { settings: { log_format: { string_param: 'xml' } } }),
      (e: { code: number; details: string }) => e.code === 3 && /got "xml"/.test(e.details),
    );
    await assert.rejects(
      c.call('LogSettings', { settings: { log_file: { string_param: '/tmp/x.log' } } }),
      (e: { code: number; details: string }) =>
        e.code === 12 &&
        e.details === 'log file location can not be updated through network protocol',
    );
    await postJson(`${t.base}/v2/logging`, reset);
  });
});

void describe("the 'logging' restricted category", () => {
  let t: TestServer;
  let c: GrpcTestClient;
  const KEY = { 'admin-key': 's3cret' };
  const GRPC_KEY = { 'triton-grpc-protocol-admin-key': 's3cret' };
  before(async () => {
    const repo = await tempRepository();
    t = await startTestServer({
      modelRepositories: [repo],
      httpRestrictedApis: parseApiRestrictions(['logging:admin-key=s3cret']),
      grpcRestrictedProtocols: parseRestrictions(['logging:admin-key=s3cret']),
    });
    c = grpcClient(t.grpcTarget);
  });
  after(async () => {
    c?.close();
    await t?.close();
  });

  void it('HTTP: 403 without the header, served with it; other categories open', async () => {
    const refused = { error: "This API is restricted, expecting header 'admin-key'" };
    assert.deepEqual(await getLogging(t), { status: 403, json: refused });
    const post = await postJson(`${t.base}/v2/logging`, { log_info: false });
    assert.deepEqual({ status: post.status, json: post.json }, { status: 403, json: refused });
    assert.equal(
      (await getLogging(t, KEY)).json['log_info'],
      true,
      'the refused POST changed nothing',
    );
    const ok = await postJson(`${t.base}/v2/logging`, { log_verbose_level: 0 }, KEY);
    assert.equal(ok.status, 200);
    assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
  });

  void it('gRPC: UNAVAILABLE without the header, served with it', async () => {
    await assert.rejects(
      c.call('LogSettings', { settings: {} }),
      (e: { code: number; details: string }) =>
        e.code === 14 &&
        e.details ===
          "This protocol is restricted, expecting header 'triton-grpc-protocol-admin-key'",
    );
    // Triton's gRPC restriction header carries its prefix (restricted-protocol.ts).
    const r = (await c.call('LogSettings', { settings: {} }, GRPC_KEY)) as {
      settings: Record<string, unknown>;
    };
    assert.ok('log_info' in r.settings);
  });
});
