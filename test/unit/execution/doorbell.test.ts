// The doorbell between the main thread and a worker, on real threads under piscina: calls answered
// in order, reclaim, a clean stop between calls, and the two ways a serve task ends badly (the
// handler throws; the thread exits), which must fail the outstanding call and every later one.

import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, it } from 'node:test';
import { Piscina } from 'piscina';
import { DoorbellClient, SERVE_TASK } from '../../../src/execution/onnxruntime/doorbell.js';
import type { RunResponse } from '../../../src/execution/messages.js';

const WORKER = fileURLToPath(new URL('./fixtures/doorbell-worker.js', import.meta.url));

let pools: Piscina[] = [];
afterEach(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  pools = [];
});

function serving(): { client: DoorbellClient; served: Promise<void> } {
  const pool = new Piscina({
    filename: WORKER,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: Infinity,
  });
  pools.push(pool);
  const client = new DoorbellClient();
  const init = client.init;
  const served = pool.run(init, { name: SERVE_TASK, transferList: [init.port] }) as Promise<void>;
  served.then(
    () => client.fail(new Error('stopped')),
    (e: unknown) => client.fail(e),
  );
  return { client, served };
}

const message = (r: RunResponse): string => (r.ok ? 'ok' : r.error.message);

void describe('doorbell', () => {
  void it('answers each call with its own reply, in order, then stops cleanly', async () => {
    const { client, served } = serving();
    for (let i = 0; i < 200; i++) {
      const reply = await client.run({ inputs: [], outputs: [`call ${i}`] });
      assert.equal(message(reply), `call ${i}`);
    }
    assert.equal(await client.reclaim(), undefined);
    client.stop();
    await served;
    await assert.rejects(client.run({ inputs: [], outputs: ['late'] }), /stopped/);
    client.close();
  });

  void it('refuses a second call while one is outstanding', async () => {
    const { client } = serving();
    const first = client.run({ inputs: [], outputs: ['first'] });
    await assert.rejects(client.run({ inputs: [], outputs: ['second'] }), /already outstanding/);
    assert.equal(message(await first), 'first');
    client.stop();
  });

  void it('fails the outstanding call and later ones when the handler throws', async () => {
    const { client, served } = serving();
    assert.equal(message(await client.run({ inputs: [], outputs: ['fine'] })), 'fine');
    await assert.rejects(
      client.run({ inputs: [], outputs: ['throw'] }),
      /injected handler failure/,
    );
    await assert.rejects(served, /injected handler failure/);
    await assert.rejects(client.run({ inputs: [], outputs: ['again'] }), /injected/);
  });

  void it('fails the outstanding call when the worker thread exits', async () => {
    const { client, served } = serving();
    await assert.rejects(client.run({ inputs: [], outputs: ['exit'] }));
    await assert.rejects(served);
  });
});
