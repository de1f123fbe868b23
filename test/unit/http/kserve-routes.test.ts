// The KServe v2 route table against a fake data plane: real routes, real body codec and real request
// validation; only model execution is faked (fake-data-plane.ts). Every route's status codes and
// bodies, the method and path errors, content encodings, and how data-plane errors become replies.

import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import { fail, type InferenceServerError } from '../../../src/errors.js';
import type { HttpCall, HttpHandler } from '../../../src/http/front-end.js';
import { AdapterCall, splitTarget } from '../../../src/http/http-call.js';
import { kserveRoutes } from '../../../src/http/kserve-routes.js';
import { bytesOf, jsonBytes, utf8 } from '../protocol/expect-error.js';
import { FakeDataPlane } from './fake-data-plane.js';

const MAX_BODY_BYTES = 4096;

interface Sent {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
  readonly text: string;
}

interface CallOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  readonly signal?: AbortSignal;
}

let plane: FakeDataPlane;
let serverErrors: InferenceServerError[];
let handler: HttpHandler;

beforeEach(() => {
  plane = new FakeDataPlane();
  serverErrors = [];
  handler = kserveRoutes(plane, {
    maxBodyBytes: MAX_BODY_BYTES,
    onServerError: (err) => serverErrors.push(err),
  });
});

/** Runs one call through the routes, as an adapter would hand it over, and flattens the reply. */
async function send(method: string, target: string, options: CallOptions = {}): Promise<Sent> {
  const headers = new Map(
    Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  const call: HttpCall = new AdapterCall(
    { method, ...splitTarget(target), headers },
    options.body ?? new Uint8Array(0),
    options.signal ?? new AbortController().signal,
  );
  const reply = await handler(call);
  const body = reply.body;
  const bytes =
    typeof body === 'string'
      ? Buffer.from(body, 'utf8')
      : Buffer.concat((body instanceof Uint8Array ? [body] : body).map((c) => Buffer.from(c)));
  return {
    status: reply.status,
    headers: reply.headers ?? {},
    bytes,
    text: bytes.toString('utf8'),
  };
}

/** A 200 with a JSON body: the parsed body. */
function okJson(sent: Sent): unknown {
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.headers['content-type'], 'application/json');
  return JSON.parse(sent.text);
}

/** Triton's error reply: the status, JSON content type and `{"error": message}`. */
function assertError(sent: Sent, status: number, message: string | RegExp): void {
  assert.equal(sent.status, status, sent.text);
  assert.equal(sent.headers['content-type'], 'application/json');
  const doc = JSON.parse(sent.text) as { error: unknown };
  assert.deepEqual(Object.keys(doc), ['error']);
  if (typeof message === 'string') assert.equal(doc.error, message);
  else assert.match(String(doc.error), message);
}

function assertEmpty(sent: Sent, status: number): void {
  assert.equal(sent.status, status);
  assert.equal(sent.bytes.length, 0);
}

const echoInput = (data: number[], extra: Record<string, unknown> = {}): unknown => ({
  inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, data.length], data }],
  ...extra,
});

const infer = (model: string, body: Uint8Array, headers: Record<string, string> = {}) =>
  send('POST', `/v2/models/${model}/infer`, { body, headers });

void describe('server routes', () => {
  void it('GET /v2 and /v2/: the server metadata', async () => {
    for (const path of ['/v2', '/v2/']) {
      assert.deepEqual(okJson(await send('GET', path)), {
        name: 'fake',
        version: '0.0.0',
        extensions: ['binary_tensor_data'],
      });
    }
  });

  void it('health: 200 or 503 with an empty body', async () => {
    assertEmpty(await send('GET', '/v2/health/live'), 200);
    assertEmpty(await send('GET', '/v2/health/ready'), 200);
    plane.isReady = false;
    assertEmpty(await send('GET', '/v2/health/ready'), 503);
    plane.isLive = false;
    assertEmpty(await send('GET', '/v2/health/live'), 503);
  });

  void it('GET /v2/models/stats: every model', async () => {
    const doc = okJson(await send('GET', '/v2/models/stats')) as {
      model_stats: { name: string; version: string }[];
    };
    assert.deepEqual(
      doc.model_stats.map((s) => [s.name, s.version]),
      [
        ['echo', '1'],
        ['pair', '1'],
      ],
    );
  });

  void it('POST /v2/repository/index: every model with its state and reason', async () => {
    assert.deepEqual(okJson(await send('POST', '/v2/repository/index')), [
      { name: 'echo', version: '1', state: 'READY', reason: '' },
      { name: 'pair', version: '1', state: 'READY', reason: '' },
      { name: 'broken', state: 'UNAVAILABLE', reason: 'config.pbtxt: no such file' },
    ]);
  });

  void it('the query string does not change the route', async () => {
    assertEmpty(await send('GET', '/v2/health/live?verbose=1'), 200);
  });
});

void describe('model routes', () => {
  void it('GET /v2/models/{m}[/versions/{v}]: the model metadata', async () => {
    const expected = {
      name: 'echo',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [-1, 4] }],
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [-1, 4] }],
    };
    assert.deepEqual(okJson(await send('GET', '/v2/models/echo')), expected);
    assert.deepEqual(okJson(await send('GET', '/v2/models/echo/versions/1')), expected);
  });

  void it('unknown models and versions: 404 with the data plane message', async () => {
    const message = "Request for unknown model: 'nope' is not found";
    assertError(await send('GET', '/v2/models/nope'), 404, message);
    assertError(await send('GET', '/v2/models/nope/ready'), 404, message);
    assertError(await send('GET', '/v2/models/nope/config'), 404, message);
    assertError(await send('GET', '/v2/models/nope/stats'), 404, message);
    assertError(
      await send('GET', '/v2/models/echo/versions/2'),
      404,
      "Request for unknown model: 'echo' is not found",
    );
  });

  void it('GET .../ready: 200 empty, or 503 with an error body', async () => {
    assertEmpty(await send('GET', '/v2/models/echo/ready'), 200);
    assertEmpty(await send('GET', '/v2/models/echo/versions/1/ready'), 200);
    plane.notReady.add('echo');
    assertError(await send('GET', '/v2/models/echo/ready'), 503, 'Model version not ready');
  });

  void it('GET .../config: the model config JSON', async () => {
    const expected = { name: 'pair', platform: 'onnxruntime_onnx', max_batch_size: 0 };
    assert.deepEqual(okJson(await send('GET', '/v2/models/pair/config')), expected);
    assert.deepEqual(okJson(await send('GET', '/v2/models/pair/versions/1/config')), expected);
  });

  void it('GET .../stats: one model, or one version', async () => {
    for (const path of ['/v2/models/pair/stats', '/v2/models/pair/versions/1/stats']) {
      const doc = okJson(await send('GET', path)) as { model_stats: { name: string }[] };
      assert.deepEqual(
        doc.model_stats.map((s) => s.name),
        ['pair'],
      );
    }
  });

  void it('model names are percent-decoded, then checked against the whitelist', async () => {
    assert.equal((await send('GET', '/v2/models/ec%68o/ready')).status, 200);
    assertError(
      await send('GET', '/v2/models/a%ZZ'),
      400,
      'the model name in the path is not valid percent-encoding',
    );
    for (const name of ['..', '%2E%2E', 'a%20b']) {
      assertError(await send('GET', `/v2/models/${name}`), 400, /^invalid model name /);
    }
  });
});

void describe('methods and paths', () => {
  void it('a GET route refuses other methods with 405', async () => {
    const paths = [
      '/v2',
      '/v2/health/live',
      '/v2/health/ready',
      '/v2/models/stats',
      '/v2/models/echo',
      '/v2/models/echo/ready',
      '/v2/models/echo/config',
      '/v2/models/echo/stats',
    ];
    for (const path of paths) {
      assertError(await send('POST', path), 405, 'Method Not Allowed: expected GET, got POST');
    }
  });

  void it('a POST route refuses other methods with 405', async () => {
    for (const path of ['/v2/repository/index', '/v2/models/echo/infer']) {
      assertError(await send('GET', path), 405, 'Method Not Allowed: expected POST, got GET');
    }
  });

  void it('the method named in a 405 is cut to 16 characters', async () => {
    assertError(
      await send('X'.repeat(40), '/v2'),
      405,
      `Method Not Allowed: expected GET, got ${'X'.repeat(16)}`,
    );
  });

  void it('anything else is 404 Not Found', async () => {
    const paths = [
      '/',
      '/v1',
      '/v2/health',
      '/v2/models',
      '/v2/models/echo/versions/one',
      '/v2/models/echo/versions/1/unknown',
      '/v2/models/echo/infer/extra',
      '/v2/repository/index/extra',
    ];
    for (const path of paths) assertError(await send('GET', path), 404, 'Not Found');
  });
});

void describe('POST .../infer', () => {
  void it('a JSON request gets a JSON response', async () => {
    const sent = await infer('echo', jsonBytes(echoInput([1, 2, 3, 4], { id: 'r1' })));
    assert.deepEqual(okJson(sent), {
      id: 'r1',
      model_name: 'echo',
      model_version: '1',
      outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] }],
    });
  });

  void it('binary outputs: octet-stream, the JSON length in a header, then the tensor bytes', async () => {
    const sent = await infer(
      'echo',
      jsonBytes(echoInput([1, 2, 3, 4], { parameters: { binary_data_output: true } })),
    );
    assert.equal(sent.status, 200);
    assert.equal(sent.headers['content-type'], 'application/octet-stream');
    const n = Number(sent.headers['inference-header-content-length']);
    assert.deepEqual(JSON.parse(sent.bytes.subarray(0, n).toString('utf8')), {
      model_name: 'echo',
      model_version: '1',
      outputs: [
        {
          name: 'OUTPUT0',
          datatype: 'FP32',
          shape: [1, 4],
          parameters: { binary_data_size: 16 },
        },
      ],
    });
    assert.deepEqual(sent.bytes.subarray(n), Buffer.from(bytesOf(Float32Array.of(1, 2, 3, 4))));
  });

  void it('binary inputs: the bytes after Inference-Header-Content-Length', async () => {
    const header = jsonBytes({
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [1, 4],
          parameters: { binary_data_size: 16 },
        },
      ],
    });
    const body = Buffer.concat([header, bytesOf(Float32Array.of(5, 6, 7, 8))]);
    const sent = await infer('echo', body, {
      'Inference-Header-Content-Length': String(header.length),
    });
    const doc = okJson(sent) as { outputs: { data: number[] }[] };
    assert.deepEqual(doc.outputs[0]?.data, [5, 6, 7, 8]);
  });

  void it('a raw binary request is the one input; it enters the data plane once', async () => {
    const raw = bytesOf(Float32Array.of(9, 8, 7, 6));
    const sent = await infer('echo', raw, { 'inference-header-content-length': '0' });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.headers['content-type'], 'application/octet-stream');
    const n = Number(sent.headers['inference-header-content-length']);
    const doc = JSON.parse(sent.bytes.subarray(0, n).toString('utf8')) as {
      outputs: { shape: number[]; parameters: unknown }[];
    };
    assert.deepEqual(doc.outputs[0]?.shape, [1, 4]);
    assert.deepEqual(doc.outputs[0]?.parameters, { binary_data_size: 16 });
    assert.deepEqual(sent.bytes.subarray(n), Buffer.from(raw));
    assert.equal(plane.inferCalls.length, 1);
    assert.deepEqual(plane.inferCalls[0]?.request, { rawBinary: raw });
  });

  void it('a raw binary request the model cannot take: 400 naming why', async () => {
    assertError(
      await infer('pair', new Uint8Array(16), { 'inference-header-content-length': '0' }),
      400,
      "Raw request must only have 1 input (found 1) to be deduced but got 2 inputs in 'pair' " +
        'model configuration',
    );
    assertError(
      await infer('echo', new Uint8Array(6), { 'inference-header-content-length': '0' }),
      400,
      "raw binary input 'INPUT0' [4] FP32: 6 bytes is not a whole number of elements",
    );
  });

  void it('the version in the path reaches the data plane, with the call signal', async () => {
    const controller = new AbortController();
    const sent = await send('POST', '/v2/models/echo/versions/1/infer', {
      body: jsonBytes(echoInput([1, 2, 3, 4])),
      signal: controller.signal,
    });
    assert.equal(sent.status, 200);
    const [recorded] = plane.inferCalls;
    assert.equal(recorded?.name, 'echo');
    assert.equal(recorded?.version, '1');
    assert.equal(recorded?.ctx.signal, controller.signal);
    assert.ok(Number.isFinite(recorded?.ctx.arrivalNs));
  });

  void it('gzip and deflate bodies are decompressed; identity and no header are as sent', async () => {
    const json = jsonBytes(echoInput([1, 2, 3, 4]));
    const bodies: [string | undefined, Uint8Array][] = [
      [undefined, json],
      ['identity', json],
      ['gzip', gzipSync(json)],
      [' GZIP ', gzipSync(json)],
      ['deflate', deflateSync(json)],
    ];
    for (const [encoding, body] of bodies) {
      const headers: Record<string, string> =
        encoding === undefined ? {} : { 'content-encoding': encoding };
      const doc = okJson(await infer('echo', body, headers)) as { outputs: { data: number[] }[] };
      assert.deepEqual(doc.outputs[0]?.data, [1, 2, 3, 4], `Content-Encoding ${encoding}`);
    }
  });

  void it('content encoding errors: 400', async () => {
    const json = jsonBytes(echoInput([1, 2, 3, 4]));
    assertError(
      await infer('echo', json, { 'content-encoding': 'br' }),
      400,
      "unsupported Content-Encoding 'br': expected gzip, deflate or identity",
    );
    assertError(
      await infer('echo', json, { 'content-encoding': 'gzip' }),
      400,
      'request body is not valid gzip data',
    );
    assertError(
      await infer('echo', gzipSync(new Uint8Array(MAX_BODY_BYTES + 1)), {
        'content-encoding': 'gzip',
      }),
      400,
      `Decompressed data size exceeds the maximum allowed value of ${MAX_BODY_BYTES} bytes. ` +
        'Use --http-max-input-size to increase the limit.',
    );
  });

  void it('body decoding errors: 400 from the codec, before the data plane', async () => {
    assertError(await infer('echo', utf8('{')), 400, /^failed to parse the request JSON: /);
    assertError(
      await infer('echo', utf8('[]')),
      400,
      'expected the request to be a JSON object, got an array',
    );
    assertError(
      await infer('echo', utf8('{}'), { 'inference-header-content-length': 'abc' }),
      400,
      'Inference-Header-Content-Length must be a decimal integer in [0, 2] (the body size), ' +
        'got "abc"',
    );
    assert.equal(plane.inferCalls.length, 0);
  });

  void it('validation errors: 400 with the validator message', async () => {
    const body = jsonBytes({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [1] }] });
    assertError(
      await infer('echo', body),
      400,
      "expected 1 inputs but got 1 inputs for model 'echo'. Got input(s) ['X'], but missing " +
        "required input(s) ['INPUT0']. Please provide all required input(s).",
    );
    assertError(
      await infer(
        'pair',
        jsonBytes({
          inputs: [
            { name: 'A', datatype: 'INT32', shape: [2], data: [1, 2] },
            { name: 'B', datatype: 'INT32', shape: [2], data: [3, 4] },
          ],
          outputs: [{ name: 'C' }],
        }),
      ),
      400,
      "unexpected inference output 'C' for model 'pair'",
    );
  });
});

void describe('data-plane errors', () => {
  void it('a catalogued error keeps its status and message; 503 is not logged', async () => {
    plane.runFailure = fail('SHUTTING_DOWN', 'the server is shutting down');
    assertError(
      await infer('echo', jsonBytes(echoInput([1, 2, 3, 4]))),
      503,
      'the server is shutting down',
    );
    assert.deepEqual(serverErrors, []);
  });

  void it('a 5xx other than 503 is reported to onServerError', async () => {
    plane.runFailure = fail('INFER_FAILED', 'ONNX Runtime said no');
    assertError(
      await infer('echo', jsonBytes(echoInput([1, 2, 3, 4]))),
      500,
      'ONNX Runtime said no',
    );
    assert.deepEqual(
      serverErrors.map((e) => e.code),
      ['INFER_FAILED'],
    );
  });

  void it('an uncatalogued throw is a generic 500 that leaks nothing', async () => {
    plane.runFailure = new Error('/secret/path/model.onnx');
    assertError(await infer('echo', jsonBytes(echoInput([1, 2, 3, 4]))), 500, 'internal error');
    assert.deepEqual(
      serverErrors.map((e) => e.code),
      ['INTERNAL'],
    );
  });
});
