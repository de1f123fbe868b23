// The hostile inputs of rows 22-27 of the reliability table: each gets a 4xx with a message naming
// what was expected and what arrived, and the server stays live and keeps answering correctly.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MODEL_REPOSITORY, REPO_ROOT } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const SIMPLE = (shape: unknown[], extra: object = {}) => ({
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape, data: Array(16).fill(1), ...extra },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
  ],
});

void describe('bad inputs get 4xx and the server stays live', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ modelRepositories: [MODEL_REPOSITORY] });
  });
  after(async () => {
    await t.close();
  });

  async function expectError(
    res: Promise<{ status: number; json: any }>,
    status: number,
    pattern: RegExp,
  ): Promise<void> {
    const r = await res;
    assert.equal(r.status, status, JSON.stringify(r.json));
    assert.equal(typeof r.json.error, 'string');
    assert.match(r.json.error, pattern);
    // still live, and still right
    assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
  }

  const infer = (body: unknown, headers: Record<string, string> = {}) =>
    postJson(`${t.base}/v2/models/simple/infer`, body, headers);

  void it('row 22: JSON nested 120 levels is refused, 50 levels is a shape error', async () => {
    const deep = (n: number) => '['.repeat(n) + '1' + ']'.repeat(n);
    await expectError(
      infer(`{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,16],"data":${deep(120)}}]}`),
      400,
      /nesting depth/,
    );
    await expectError(
      infer(
        `{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1,16],"data":${deep(50)}},` +
          `{"name":"INPUT1","datatype":"INT32","shape":[1,16],"data":[${Array(16).fill(1).join(',')}]}]}`,
      ),
      400,
      // Triton's words for data that does not fill its shape (http_server.cc).
      /shape does not match true shape/,
    );
  });

  void it('row 23: overflowing, negative, fractional and non-numeric dims', async () => {
    for (const shape of [
      [16, 2 ** 60 + 2],
      [4, 2 ** 60 + 2],
      [1, 2 ** 31],
      [2 ** 31, 16],
    ]) {
      await expectError(infer(SIMPLE(shape)), 400, /shape|batch-size|bytes|byte size overflow/);
    }
    for (const shape of [[-5, 2], [1.5, 16], ['a'], [1, 1e400]]) {
      await expectError(infer(SIMPLE(shape)), 400, /integer >= 0|shape/);
    }
    // Data that fills the shape sent: otherwise that mismatch is reported first, as in Triton.
    await expectError(
      infer(SIMPLE([1, 15], { data: Array(15).fill(1) })),
      400,
      /Expected \[-1,16\], got \[1,15\]/,
    );
    await expectError(
      infer(SIMPLE([9, 16], { data: Array(144).fill(1) })),
      400,
      /batch-size must be <= 8/,
    );
  });

  void it('row 24: binary byte-size mismatches and broken BYTES', async () => {
    const binary = (datatype: string, shape: number[], payload: Buffer, model = 'simple') => {
      const header = Buffer.from(
        JSON.stringify({
          inputs: [
            { name: 'INPUT0', datatype, shape, parameters: { binary_data_size: payload.length } },
            ...(model === 'simple'
              ? [{ name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(0) }]
              : []),
          ],
        }),
      );
      return fetch(`${t.base}/v2/models/${model}/infer`, {
        method: 'POST',
        headers: { 'inference-header-content-length': String(header.length) },
        body: Buffer.concat([header, payload]),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    };
    // Triton core's words (infer_request.cc).
    await expectError(binary('INT32', [1, 16], Buffer.alloc(68)), 400, /Expected 64, got 68/);
    await expectError(binary('INT32', [1, 16], Buffer.alloc(60)), 400, /Expected 64, got 60/);
    const el = (s: string) => {
      const b = Buffer.from(s);
      const len = Buffer.alloc(4);
      len.writeUInt32LE(b.length);
      return Buffer.concat([len, b]);
    };
    await expectError(
      binary('BYTES', [1, 3], Buffer.concat([el('a'), el('b')]), 'identity_bytes'),
      400,
      /element/,
    );
    await expectError(
      binary(
        'BYTES',
        [1, 3],
        Buffer.concat([el('a'), el('b'), el('c'), el('d')]),
        'identity_bytes',
      ),
      400,
      /element|byte/,
    );
    await expectError(
      binary('BYTES', [1, 1], Buffer.from([1, 0]), 'identity_bytes'),
      400,
      /prefix|element|byte/,
    );
    await expectError(
      binary('BYTES', [1, 1], Buffer.from([0xff, 0xff, 0xff, 0xff, 65]), 'identity_bytes'),
      400,
      /length|byte/,
    );
  });

  void it('row 25: bad Inference-Header-Content-Length values', async () => {
    const body = JSON.stringify(SIMPLE([1, 16]));
    for (const v of ['99999999999', '-1', 'abc', String(body.length + 10)]) {
      await expectError(
        infer(body, { 'inference-header-content-length': v }),
        400,
        /Inference-Header-Content-Length/i,
      );
    }
  });

  void it('row 26: duplicate and excessive outputs', async () => {
    await expectError(
      infer({ ...SIMPLE([1, 16]), outputs: [{ name: 'OUTPUT0' }, { name: 'OUTPUT0' }] }),
      400,
      /OUTPUT0/,
    );
    const many = Array.from({ length: 100_000 }, (_, i) => ({ name: `O${i}` }));
    await expectError(infer({ ...SIMPLE([1, 16]), outputs: many }), 400, /outputs/);
    await expectError(
      infer({ ...SIMPLE([1, 16]), outputs: [{ name: 'NOPE' }] }),
      400,
      /unexpected inference output 'NOPE'/,
    );
  });

  void it('row 27: model names that could escape the repository never reach the filesystem', async () => {
    const names = [
      '..',
      '%2e%2e',
      '..%2Fetc',
      'a%2F..%2Fb',
      '%2Fetc%2Fpasswd',
      'model%2F..',
      '%20..',
      '%20',
      'x%00y',
    ];
    for (const n of names) {
      const res = await fetch(`${t.base}/v2/models/${n}/config`);
      assert.ok(res.status === 400 || res.status === 404, `${n}: ${res.status}`);
      const body = (await res.json()) as any;
      assert.equal(typeof body.error, 'string');
      // the client's own text may be echoed; the server's paths never are
      assert.ok(!body.error.includes(REPO_ROOT), body.error);
    }
    for (const n of ['...', '..my_model', 'model..1']) {
      const res = await fetch(`${t.base}/v2/models/${n}/config`);
      assert.equal(res.status, 404, n);
      assert.match(((await res.json()) as any).error, /unknown model/);
    }
  });

  void it('wrong datatypes, unknown and missing inputs, bad JSON', async () => {
    await expectError(
      infer({
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: Array(16).fill(1) }],
      }),
      400,
      /missing required input|INPUT1/,
    );
    await expectError(
      infer(SIMPLE([1, 16], { datatype: 'FP32' })),
      400,
      /data-type is 'FP32', but model 'simple' expects 'INT32'/,
    );
    await expectError(infer(SIMPLE([1, 16], { name: 'INPUTX' })), 400, /INPUTX/);
    await expectError(infer('{"inputs": ['), 400, /JSON/);
    await expectError(
      infer(SIMPLE([1, 16], { data: Array(16).fill('x') })),
      400,
      /INT32|number|integer/,
    );
    await expectError(
      infer(SIMPLE([1, 16], { data: Array(16).fill(2 ** 40) })),
      400,
      /range|INT32/,
    );
  });

  void it('unknown routes, wrong methods, unknown models', async () => {
    assert.equal((await fetch(`${t.base}/v2/nope`)).status, 404);
    assert.equal((await fetch(`${t.base}/v2/models/simple/infer`)).status, 405);
    const r = await postJson(`${t.base}/v2/models/nope/infer`, SIMPLE([1, 16]));
    assert.equal(r.status, 404);
    assert.match(r.json.error, /unknown model: 'nope'/);
    const v = await fetch(`${t.base}/v2/models/simple/versions/7/ready`);
    assert.notEqual(v.status, 200);
  });

  void it('a raw socket sending garbage does not take the server down', async () => {
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(new URL(t.base).port), '127.0.0.1', () => {
        s.write('GARBAGE / HTTP/9.9\r\n\r\n\0\0\0');
        s.end();
      });
      s.resume(); // read the 400 so the socket can reach its end and close
      s.on('close', () => resolve());
      s.on('error', () => resolve());
    });
    assert.equal((await fetch(`${t.base}/v2/health/live`)).status, 200);
  });
});
