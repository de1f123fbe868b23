// The in-process API (`import { startServer } from 'infernode'`): simple and mlp run through the
// data plane with no socket, errors keep their catalog codes, and the package's exports resolve.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import {
  InferenceServerError,
  output,
  startServer,
  tensor,
  type InfernodeServer,
} from '../../src/index.js';
import { mlpReference } from '../helpers/mlp-reference.js';
import { MODEL_REPOSITORY } from '../helpers/paths.js';

void describe('the in-process API', () => {
  let server: InfernodeServer;
  before(async () => {
    server = await startServer({
      modelRepositories: [MODEL_REPOSITORY],
      httpAddress: '127.0.0.1',
      httpPort: 0,
      allowGrpc: false,
      allowMetrics: false,
      logger: createLogger(0, new Writable({ write: (_c, _e, done) => done() })),
    });
  });
  after(async () => {
    assert.equal(await server.close(10_000), true, 'drained');
  });

  void it('runs simple, honouring the outputs filter', async () => {
    const a = Int32Array.from({ length: 16 }, (_, i) => i);
    const b = Int32Array.from({ length: 16 }, () => 2);
    const r = await server.infer(
      'simple',
      [tensor('INPUT0', 'INT32', [1, 16], a), tensor('INPUT1', 'INT32', [1, 16], b)],
      { outputs: ['OUTPUT1'] },
    );
    assert.equal(r.modelName, 'simple');
    assert.equal(r.modelVersion, '1');
    assert.deepEqual(
      r.outputs.map((o) => o.name),
      ['OUTPUT1'],
    );
    assert.deepEqual(
      [...(output(r, 'OUTPUT1').data as Int32Array)],
      [...a].map((x) => x - 2),
    );
  });

  void it('runs mlp like the JS reference', async () => {
    const x = Float32Array.from({ length: 784 }, (_, i) => Math.cos(i * 0.11) * 0.8);
    const r = await server.infer('mlp', [tensor('INPUT0', 'FP32', [1, 784], x)]);
    const got = output(r, 'OUTPUT0').data as Float32Array;
    const ref = mlpReference(x);
    const scale = Math.max(...[...ref].map(Math.abs));
    for (let k = 0; k < 10; k++) {
      assert.ok(Math.abs((got[k] as number) - (ref[k] as number)) <= 1e-4 * scale + 1e-6, `k ${k}`);
    }
  });

  void it('rejects with the catalog error', async () => {
    await assert.rejects(
      server.infer('simple', [
        tensor('INPUT0', 'FP32', [1, 16], new Float32Array(16)),
        tensor('INPUT1', 'INT32', [1, 16], new Int32Array(16)),
      ]),
      (e: unknown) => e instanceof InferenceServerError && e.code === 'BAD_DATATYPE',
    );
    await assert.rejects(
      server.infer('nope', []),
      (e: unknown) => e instanceof InferenceServerError && e.code === 'MODEL_NOT_FOUND',
    );
  });

  void it("resolves the package's exports: infernode and infernode/client", async () => {
    const api = (await import('infernode' as string)) as Record<string, unknown>;
    assert.equal(typeof api['startServer'], 'function');
    const client = (await import('infernode/client' as string)) as Record<string, unknown>;
    assert.equal(typeof client['InferenceClient'], 'function');
  });
});
