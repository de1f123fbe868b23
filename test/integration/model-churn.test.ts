// Concurrent load and unload churn on a real server: 16 clients making 500 random load and unload
// calls leave the server live, ready and consistent. In a file of its own: on a loaded 2-core
// machine 1000 calls took over a minute, which with the rest of model-management.test.ts passed the
// runner's 120 s limit for one file; 1000 calls made 235 unloads and 234 reloads take effect, so
// 500 still make about twice the 50 of each the test asks for, in half the time.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RepositoryIndexEntry } from '../../src/dataplane/data-plane-api.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const NO_FILES = { files: new Map<string, Uint8Array>() };

/** The repository index over HTTP, as a client reads it. */
async function index(t: TestServer): Promise<RepositoryIndexEntry[]> {
  const r = await postJson(`${t.base}/v2/repository/index`, {});
  assert.equal(r.status, 200);
  return r.json as RepositoryIndexEntry[];
}

void describe('concurrent load and unload churn', () => {
  const CLIENTS = 16;
  const CALLS = 500;
  let t: TestServer;
  before(async () => {
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({
      modelRepositories: [repo],
      modelControlMode: 'explicit',
      loadModels: ['*'],
    });
  });
  after(() => t.close());

  void it(`${CLIENTS} clients, ${CALLS} random calls: live, ready, and the index agrees`, async () => {
    let left = CALLS;
    const errors: string[] = [];
    const client = async (seed: number): Promise<void> => {
      let x = seed;
      while (left > 0) {
        left -= 1;
        x = (Math.imul(x, 1103515245) + 12345) >>> 0; // a 32-bit LCG: its high bits are random
        const load = ((x >>> 16) & 1) === 0;
        try {
          if (load) await t.server.dataPlane.loadModel('simple', NO_FILES);
          else await t.server.dataPlane.unloadModel('simple', { unloadDependents: false });
        } catch (e) {
          errors.push(String(e));
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i + 1)));
    assert.deepEqual(errors, []);
    // The calls really churned: many of them unloaded a serving model and loaded it again.
    const unloads = t.logs.filter((l) => l.includes('"msg":"model unloaded"')).length;
    const loads = t.logs.filter((l) => l.includes('"msg":"model version ready"')).length;
    process.stdout.write(`# churn: ${unloads} unloads and ${loads - 1} reloads took effect\n`);
    assert.ok(unloads >= 50 && loads >= 50, `${unloads} unloads, ${loads} loads`);
    assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
    assert.equal((await fetch(`${t.base}/v2/health/ready`)).status, 200);
    const rows = (await index(t)).filter((e) => e.name === 'simple');
    const modelReady = (await fetch(`${t.base}/v2/models/simple/ready`)).status === 200;
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.state === 'READY', modelReady, JSON.stringify(rows));
    // Whatever the last call was, the model can be loaded and serves.
    await t.server.dataPlane.loadModel('simple', NO_FILES);
    const r = await postJson(`${t.base}/v2/models/simple/infer`, {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
      ],
    });
    assert.equal(r.status, 200);
  });
});
