// A JavaScript model's start is bounded by `initialize_timeout_ms`: an initialize() that never
// settles, or loops, fails its load with an error naming the model and the limit, and its worker
// thread is terminated (its heartbeat stops); a replacement whose initialize() hangs is terminated
// too and retried after the back-off, and the model comes back once initialize() returns again.
// Real models in a temporary repository, served by a real server with real worker threads.

import assert from 'node:assert/strict';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { waitFor } from '../helpers/wait-for.js';
import { poolErrors } from './worker-failures/faulty-server.js';

// Generous: a loaded machine can take a second to start a worker thread and import the module.
const LIMIT_MS = 3000;

/** Writes `<repo>/<name>/config.pbtxt` and `<repo>/<name>/1/model.js`. */
async function jsModel(repo: string, name: string, config: string, source: string): Promise<void> {
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  await writeFile(path.join(repo, name, 'config.pbtxt'), `name: "${name}"\n${config}`);
  await writeFile(path.join(repo, name, '1', 'model.js'), source);
}

const config = (extra: string): string => `
backend: "javascript"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
parameters { key: "initialize_timeout_ms" value: { string_value: "${LIMIT_MS}" } }
${extra}
`;

// initialize() beats a heartbeat into a file from its own thread, then never settles: the file
// stops growing only when the thread is gone.
const HANG_SOURCE = `
import { appendFileSync } from 'node:fs';
export function initialize(args) {
  const file = args.model_config.parameters.heartbeat.string_value;
  appendFileSync(file, '.');
  setInterval(() => appendFileSync(file, '.'), 20);
  return new Promise(() => {});
}
export function execute(requests) { return requests.map(() => new Error('unreachable')); }
`;

const SPIN_SOURCE = `
export function initialize() { for (;;) {} }
export function execute(requests) { return requests.map(() => new Error('unreachable')); }
`;

// The first worker starts; X = -1 kills it. A replacement hangs in initialize() while the flag
// file exists.
const LATER_SOURCE = `
import { existsSync, writeFileSync } from 'node:fs';
let flag;
export function initialize(args) {
  flag = args.model_config.parameters.flag.string_value;
  if (existsSync(flag)) return new Promise(() => {});
}
export function execute(requests) {
  if (requests[0].inputs.X.data[0] === -1) { writeFileSync(flag, 'hang'); process.exit(3); }
  return requests.map((r) => ({ outputs: { Y: { shape: [1], data: r.inputs.X.data } } }));
}
`;

const x = (v: number): unknown => ({
  inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [v] }],
});

interface IndexRow {
  readonly name: string;
  readonly state?: string;
  readonly reason?: string;
}

async function indexRow(t: TestServer, name: string): Promise<IndexRow | undefined> {
  const index = await postJson(`${t.base}/v2/repository/index`, {});
  return (index.json as IndexRow[]).find((r) => r.name === name);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const TIMED_OUT = new RegExp(
  `initialize\\(\\) \\(with the module's import and the warmup\\) did not finish within ` +
    `${LIMIT_MS} ms \\(parameter initialize_timeout_ms\\); its worker was terminated`,
);

void describe('JavaScript initialize_timeout_ms', () => {
  let repo: string;
  let heartbeat: string;
  let flag: string;
  let t: TestServer;
  let startMs: number;
  before(async () => {
    repo = await tempRepository();
    heartbeat = path.join(repo, 'heartbeat');
    flag = path.join(repo, 'hang-flag');
    await jsModel(
      repo,
      'js_init_hang',
      config(`parameters { key: "heartbeat" value: { string_value: "${heartbeat}" } }`),
      HANG_SOURCE,
    );
    await jsModel(repo, 'js_init_spin', config(''), SPIN_SOURCE);
    await jsModel(
      repo,
      'js_init_later',
      config(`parameters { key: "flag" value: { string_value: "${flag}" } }`),
      LATER_SOURCE,
    );
    const started = performance.now();
    t = await startTestServer({ modelRepositories: [repo] });
    startMs = performance.now() - started;
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  void it('fails the load of an initialize() that never settles, naming model and limit', async () => {
    // Start-up waits for every load: the hanging ones end it after the limit, not never.
    assert.ok(startMs < 30_000, `${startMs} ms`);
    const row = await indexRow(t, 'js_init_hang');
    assert.equal(row?.state, 'UNAVAILABLE');
    assert.match(row?.reason ?? '', /model "js_init_hang" version 1 instance js_init_hang: /);
    assert.match(row?.reason ?? '', TIMED_OUT);
    assert.notEqual((await fetch(`${t.base}/v2/models/js_init_hang/ready`)).status, 200);
  });

  void it("terminates the worker: initialize()'s heartbeat stops", async () => {
    const size = async (): Promise<number> => (await stat(heartbeat)).size;
    const first = await size();
    assert.ok(first > 0, 'initialize() never ran');
    await sleep(400); // 20 beats, were the thread alive
    assert.equal(await size(), first);
  });

  void it('fails the load of an initialize() that loops', async () => {
    const row = await indexRow(t, 'js_init_spin');
    assert.equal(row?.state, 'UNAVAILABLE');
    assert.match(row?.reason ?? '', /model "js_init_spin" version 1 instance js_init_spin: /);
    assert.match(row?.reason ?? '', TIMED_OUT);
  });

  void it('retries a replacement whose initialize() hangs, and recovers', async () => {
    const infer = `${t.base}/v2/models/js_init_later/infer`;
    assert.equal((await postJson(infer, x(1))).status, 200);
    const died = await postJson(infer, x(-1));
    assert.equal(died.status, 500, JSON.stringify(died.json));
    // The replacement hangs; it is terminated at the limit and the next one waits its turn.
    const refused = await waitFor(
      () => postJson(infer, x(2)),
      (r) => r.status === 503 && TIMED_OUT.test(String(r.json.error)),
      20_000,
    );
    assert.equal(refused.status, 503, JSON.stringify(refused.json));
    assert.match(String(refused.json.error), /is not ready: no instance is running/);
    assert.match(String(refused.json.error), TIMED_OUT);
    assert.match(String(refused.json.error), /it is being restarted \(next attempt in [\d.]+ s, /);
    const logged = poolErrors(t, 'js_init_later').filter((r) => TIMED_OUT.test(r.msg));
    assert.ok(logged.length >= 1, JSON.stringify(logged));
    assert.match(logged[0]?.msg ?? '', /the replacement for instance js_init_later: /);

    await rm(flag);
    const ready = await waitFor(
      async () => (await fetch(`${t.base}/v2/models/js_init_later/ready`)).status,
      (s) => s === 200,
      60_000,
    );
    assert.equal(ready, 200);
    const ok = await postJson(infer, x(3));
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.deepEqual((ok.json.outputs as Array<{ data: number[] }>)[0]?.data, [3]);
  });
});
