// A JavaScript model whose execute() keeps hanging (past execute_timeout_ms) or keeps crashing its
// worker is not restarted in a loop: each consecutive loss with no answered request in between
// doubles the wait before the next worker (restart-backoff.ts), the wait shows in the pool's log
// and in the MODEL_NOT_READY answer, and one answered request resets it. Real models in a temporary
// repository, served by a real server with real worker threads; each worker's initialize() writes
// its start time to a file, which gives the restart spacing.

import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { restartDelayMs } from '../../src/execution/restart-backoff.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { waitFor } from '../helpers/wait-for.js';
import { poolErrors } from './worker-failures/faulty-server.js';

/** Writes `<repo>/<name>/config.pbtxt` and `<repo>/<name>/1/model.js`. */
async function jsModel(repo: string, name: string, config: string, source: string): Promise<void> {
  await mkdir(path.join(repo, name, '1'), { recursive: true });
  await writeFile(path.join(repo, name, 'config.pbtxt'), `name: "${name}"\n${config}`);
  await writeFile(path.join(repo, name, '1', 'model.js'), source);
}

const config = (starts: string): string => `
backend: "javascript"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
parameters { key: "execute_timeout_ms" value: { string_value: "300" } }
parameters { key: "starts" value: { string_value: "${starts}" } }
`;

/** X = -1 fails the run with `fault`; any other X is echoed. */
const source = (fault: string): string => `
import { appendFileSync } from 'node:fs';
export function initialize(args) {
  appendFileSync(args.model_config.parameters.starts.string_value, Date.now() + '\\n');
}
export function execute(requests) {
  if (requests[0].inputs.X.data[0] === -1) { ${fault} }
  return requests.map((r) => ({ outputs: { Y: { shape: [1], data: r.inputs.X.data } } }));
}
`;

const CASES = [
  {
    what: 'hangs',
    model: 'js_hang_loop',
    fault: 'return new Promise(() => {});',
    status: 503,
    error: /execute\(\) did not settle within 300 ms \(parameter execute_timeout_ms\)/,
    loss: /instance js_hang_loop: execute\(\) did not settle within 300 ms; terminating its worker; /,
  },
  {
    what: 'crashes its worker',
    model: 'js_crash_loop',
    fault: 'process.exit(3);',
    status: 500,
    error: /exited during the request \(exit code 3\); it is being replaced/,
    loss: /instance js_crash_loop died during a request \(exit code 3\); /,
  },
] as const;

const x = (v: number): unknown => ({
  inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [v] }],
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Worker start times (Date.now() in each initialize()), in order. */
async function starts(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

/** The delay each loss announced in the pool's log ("starting a replacement" is 0). */
function announced(t: TestServer, model: string, loss: RegExp): number[] {
  return poolErrors(t, model)
    .filter((r) => loss.test(r.msg))
    .map((r) => {
      if (r.msg.endsWith('starting a replacement')) return 0;
      const s = /next attempt in ([\d.]+) s$/.exec(r.msg)?.[1];
      assert.ok(s !== undefined, r.msg);
      return Math.round(Number(s) * 1000);
    });
}

void describe('JavaScript worker restarts back off', () => {
  let repo: string;
  let t: TestServer;
  const file = (model: string): string => path.join(repo, `${model}.starts`);
  before(async () => {
    repo = await tempRepository();
    for (const c of CASES) await jsModel(repo, c.model, config(file(c.model)), source(c.fault));
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  for (const c of CASES) {
    void it(`spaces out the restarts of a model whose execute() ${c.what}`, async () => {
      const infer = `${t.base}/v2/models/${c.model}/infer`;
      /** When each failed run was answered (Date.now(), as the start times are). */
      const failedAt: number[] = [];
      const notReady: string[] = [];
      const deadline = performance.now() + 60_000;
      // Four losses in a row: restarts after 0, 250, 500 and 1000 ms.
      while (failedAt.length < 4 && performance.now() < deadline) {
        const res = await postJson(infer, x(-1));
        const error = String(res.json.error);
        if (/is not ready/.test(error)) {
          // Meanwhile the instance is waiting out its back-off: a prompt 503 saying so.
          assert.equal(res.status, 503, JSON.stringify(res.json));
          assert.match(error, /is not ready: no instance is running/);
          notReady.push(error);
          await sleep(20);
        } else {
          assert.equal(res.status, c.status, JSON.stringify(res.json));
          assert.match(error, c.error);
          failedAt.push(Date.now());
        }
      }
      assert.equal(failedAt.length, 4);
      const begun = await waitFor(
        () => starts(file(c.model)),
        (s) => s.length >= 5,
      );
      assert.equal(begun.length, 5, JSON.stringify(begun));

      assert.deepEqual(
        announced(t, c.model, c.loss),
        [1, 2, 3, 4].map((k) => restartDelayMs(k)),
      );
      // The k-th loss's replacement starts at least its delay later. Generous: the answer leaves
      // a little after the loss, and a loaded machine starts workers slowly, never early.
      const gaps = failedAt.map((at, k) => (begun[k + 1] as number) - at);
      for (const [k, gap] of gaps.entries()) {
        assert.ok(gap >= restartDelayMs(k + 1) - 150, `gaps ${JSON.stringify(gaps)}`);
      }
      assert.ok((gaps[3] as number) > (gaps[0] as number), `gaps ${JSON.stringify(gaps)}`);
      assert.ok(
        notReady.some((m) =>
          /it is being restarted \(next attempt in [\d.]+ s, after [234] consecutive failures\)$/.test(
            m,
          ),
        ),
        JSON.stringify(notReady),
      );
    });

    void it(`resets the back-off of a model whose execute() ${c.what} once it answers`, async () => {
      const infer = `${t.base}/v2/models/${c.model}/infer`;
      const answered = await waitFor(
        () => postJson(infer, x(5)),
        (r) => r.status === 200,
        60_000,
      );
      assert.equal(answered.status, 200, JSON.stringify(answered.json));
      const before = announced(t, c.model, c.loss).length;
      const res = await postJson(infer, x(-1));
      assert.equal(res.status, c.status, JSON.stringify(res.json));
      const after = await waitFor(
        () => announced(t, c.model, c.loss),
        (a) => a.length > before,
      );
      // The worker answered a request: its loss is the first of a new count, replaced at once.
      assert.equal(after[before], 0, JSON.stringify(after));
    });
  }
});
