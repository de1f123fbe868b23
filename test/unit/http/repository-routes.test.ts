// The repository routes against the fake data plane: what index, load and unload hand the data
// plane, what they answer (Triton's 200 with an empty body), the optional repository segment, the
// model-name rules (checked on load, not on unload), body limits, and data-plane errors.

import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { fail } from '../../../src/errors.js';
import type { HttpHandler } from '../../../src/http/front-end.js';
import { AdapterCall, splitTarget } from '../../../src/http/http-call.js';
import { kserveRoutes } from '../../../src/http/kserve-routes.js';
import { jsonBytes, utf8 } from '../protocol/expect-error.js';
import { FakeDataPlane } from './fake-data-plane.js';

const MAX_BODY_BYTES = 4096;
const CONFIG = '{"name":"echo"}';

let plane: FakeDataPlane;
let handler: HttpHandler;

beforeEach(() => {
  plane = new FakeDataPlane();
  handler = kserveRoutes(plane, { maxBodyBytes: MAX_BODY_BYTES });
});

interface Sent {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

async function post(
  target: string,
  body: Uint8Array = new Uint8Array(0),
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Sent> {
  const call = new AdapterCall(
    { method, ...splitTarget(target), headers: new Map(Object.entries(headers)) },
    body,
    new AbortController().signal,
  );
  const reply = await handler(call);
  assert.equal(typeof reply.body, 'string', 'the repository routes answer with text');
  return {
    status: reply.status,
    contentType: reply.headers?.['content-type'],
    text: reply.body as string,
  };
}

function assertError(sent: Sent, status: number, message: string | RegExp): void {
  assert.equal(sent.status, status, sent.text);
  assert.equal(sent.contentType, 'application/json');
  const doc = JSON.parse(sent.text) as { error: string };
  assert.deepEqual(Object.keys(doc), ['error']);
  if (typeof message === 'string') assert.equal(doc.error, message);
  else assert.match(doc.error, message);
}

/** Triton's success answer to load and unload: 200, JSON content type, an empty body. */
function assertDone(sent: Sent): void {
  assert.deepEqual(sent, { status: 200, contentType: 'application/json', text: '' });
}

const ALL_ROWS = [
  { name: 'echo', version: '1', state: 'READY', reason: '' },
  { name: 'pair', version: '1', state: 'READY', reason: '' },
  { name: 'broken', state: 'UNAVAILABLE', reason: 'config.pbtxt: no such file' },
  { name: 'never_loaded' },
];

void describe('POST /v2/repository/index', () => {
  beforeEach(() => plane.extraIndexRows.push({ name: 'never_loaded' }));

  void it('every model, a never-loaded one with its name only; ready: true keeps READY rows', async () => {
    for (const body of [new Uint8Array(0), jsonBytes({}), jsonBytes({ ready: false })]) {
      const sent = await post('/v2/repository/index', body);
      assert.equal(sent.status, 200);
      assert.equal(sent.contentType, 'application/json');
      assert.deepEqual(JSON.parse(sent.text), ALL_ROWS);
    }
    const ready = await post('/v2/repository/index', jsonBytes({ ready: true }));
    assert.deepEqual(JSON.parse(ready.text), ALL_ROWS.slice(0, 2));
  });

  void it('a repository segment is accepted and ignored, as Triton ignores it for the index', async () => {
    const sent = await post('/v2/repository/any_name/index', jsonBytes({ ready: true }));
    assert.deepEqual(JSON.parse(sent.text), ALL_ROWS.slice(0, 2));
  });

  void it('a bad body: 400 naming what arrived', async () => {
    assertError(
      await post('/v2/repository/index', jsonBytes({ ready: 'yes' })),
      400,
      "Invalid value for 'ready': expected a boolean, got a string",
    );
    assertError(await post('/v2/repository/index', utf8('{')), 400, /^failed to parse/);
  });

  void it('a gzip body is decompressed', async () => {
    const sent = await post('/v2/repository/index', gzipSync(jsonBytes({ ready: true })), {
      'content-encoding': 'gzip',
    });
    assert.deepEqual(JSON.parse(sent.text), ALL_ROWS.slice(0, 2));
  });
});

void describe('POST /v2/repository/models/{m}/load', () => {
  void it('an empty body loads with no parameters', async () => {
    assertDone(await post('/v2/repository/models/echo/load'));
    assert.deepEqual(plane.loadCalls, [{ name: 'echo', request: { files: new Map() } }]);
  });

  void it('config and base64 files reach the data plane decoded', async () => {
    const body = jsonBytes({
      parameters: { config: CONFIG, 'file:1/model.onnx': Buffer.of(1, 2, 3).toString('base64') },
    });
    assertDone(await post('/v2/repository/models/echo/load', body));
    assert.deepEqual(plane.loadCalls, [
      {
        name: 'echo',
        request: { config: CONFIG, files: new Map([['1/model.onnx', Uint8Array.of(1, 2, 3)]]) },
      },
    ]);
  });

  void it('a bad body is refused before the data plane is called', async () => {
    assertError(
      await post(
        '/v2/repository/models/echo/load',
        jsonBytes({ parameters: { config: CONFIG, 'file:1/m': '!!' } }),
      ),
      400,
      'load parameter \'file:1/m\' must be base64, got the character "!" at offset 0',
    );
    assertError(
      await post(
        '/v2/repository/models/echo/load',
        jsonBytes({ parameters: { 'file:1/m': 'AA==' } }),
      ),
      400,
      /^Load parameter 'config' must be specified for model file override/,
    );
    assert.deepEqual(plane.loadCalls, []);
  });

  void it('the model name is percent-decoded and checked against the whitelist', async () => {
    assertDone(await post('/v2/repository/models/..my_model/load'));
    for (const segment of ['..', '%2E%2E', '..%2Fetc', 'a%20b', '%ZZ']) {
      assertError(
        await post(`/v2/repository/models/${segment}/load`),
        400,
        /invalid model name|not valid percent-encoding/,
      );
    }
    assert.deepEqual(
      plane.loadCalls.map((c) => c.name),
      ['..my_model'],
    );
  });

  void it('a body over the limit after decompression: 400', async () => {
    const body = gzipSync(jsonBytes({ parameters: { config: 'x'.repeat(MAX_BODY_BYTES) } }));
    assertError(
      await post('/v2/repository/models/echo/load', body, { 'content-encoding': 'gzip' }),
      400,
      /^Decompressed data size exceeds the maximum allowed value of 4096 bytes/,
    );
  });
});

void describe('POST /v2/repository/models/{m}/unload', () => {
  void it('an empty body, and unload_dependents', async () => {
    assertDone(await post('/v2/repository/models/echo/unload'));
    assertDone(
      await post(
        '/v2/repository/models/echo/unload',
        jsonBytes({ parameters: { unload_dependents: true } }),
      ),
    );
    assert.deepEqual(plane.unloadCalls, [
      { name: 'echo', unloadDependents: false },
      { name: 'echo', unloadDependents: true },
    ]);
  });

  void it('names outside the whitelist reach the data plane: unload only looks a name up', async () => {
    // Triton applies its traversal check to load alone (qa/L0_input_validation).
    for (const segment of ['..', '..%2F..%2Fetc', '%2Fetc%2Fpasswd', 'a%20b']) {
      assertDone(await post(`/v2/repository/models/${segment}/unload`));
    }
    assert.deepEqual(
      plane.unloadCalls.map((c) => c.name),
      ['..', '../../etc', '/etc/passwd', 'a b'],
    );
    assertError(
      await post('/v2/repository/models/%ZZ/unload'),
      400,
      'the model name in the path is not valid percent-encoding',
    );
  });

  void it('a bad unload_dependents: 400', async () => {
    assertError(
      await post(
        '/v2/repository/models/echo/unload',
        jsonBytes({ parameters: { unload_dependents: 1 } }),
      ),
      400,
      "unload parameter 'unload_dependents' must be a boolean, got the number 1",
    );
    assert.deepEqual(plane.unloadCalls, []);
  });
});

void describe('repository routes: segments, methods and errors', () => {
  void it('load and unload with a repository segment: 501, as in Triton', async () => {
    for (const action of ['load', 'unload']) {
      assertError(
        await post(`/v2/repository/repo/models/echo/${action}`),
        501,
        "'repository_name' specification is not supported",
      );
    }
    assert.equal(plane.loadCalls.length + plane.unloadCalls.length, 0);
  });

  void it('other methods: 405; other paths under /v2/repository: 404', async () => {
    for (const path of [
      '/v2/repository/index',
      '/v2/repository/models/echo/load',
      '/v2/repository/models/echo/unload',
    ]) {
      assertError(
        await post(path, undefined, {}, 'GET'),
        405,
        'Method Not Allowed: expected POST, got GET',
      );
    }
    for (const path of [
      '/v2/repository',
      '/v2/repository/models/echo',
      '/v2/repository/models/echo/reload',
      '/v2/repository/models/echo/load/extra',
      '/v2/repository/a/b/index',
    ]) {
      assertError(await post(path), 404, 'Not Found');
    }
  });

  void it("the data plane's refusal keeps its status and message", async () => {
    plane.controlFailure = fail(
      'MODEL_CONTROL_DISABLED',
      'explicit model load / unload is not allowed if polling is enabled',
    );
    for (const action of ['load', 'unload']) {
      assertError(
        await post(`/v2/repository/models/echo/${action}`),
        503,
        'explicit model load / unload is not allowed if polling is enabled',
      );
    }
    plane.controlFailure = fail('BAD_MODEL_FILE', "file '../x' leaves the model directory");
    assertError(
      await post('/v2/repository/models/echo/load'),
      400,
      "file '../x' leaves the model directory",
    );
  });
});
