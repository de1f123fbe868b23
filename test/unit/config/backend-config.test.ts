// --backend-config: the flags' grammar and Triton's resolution (config/backend-config.ts), read by
// the ONNX Runtime backend (global vs onnxruntime-specific settings, defaults) and the registry
// (settings no backend reads), with errors that quote the flag.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBackendConfig } from '../../../src/config/backend-config.js';
import {
  readOrtBackendConfig,
  type OnnxRuntimeBackendConfig,
} from '../../../src/execution/onnxruntime/config/ort-backend-config.js';
import { readBackendSettings } from '../../../src/repository/backends/registry.js';
import { InferenceServerError } from '../../../src/errors.js';

/** The ONNX Runtime backend's reading of the flags. */
const ort = (flags: readonly string[]): OnnxRuntimeBackendConfig =>
  readOrtBackendConfig(parseBackendConfig(flags));
/** The settings no registered backend reads. */
const unused = (flags: readonly string[]) => readBackendSettings(parseBackendConfig(flags)).unused;

void test('no flags: Triton defaults', () => {
  const c = parseBackendConfig([]);
  assert.deepEqual(c, { settings: [] });
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.settings));
  const o = readOrtBackendConfig(c);
  assert.deepEqual(o, { enableGlobalThreadpool: false, defaultMaxBatchSize: 4 });
  assert.ok(Object.isFrozen(o));
  assert.deepEqual(readBackendSettings(c), {
    threads: { globalThreadPool: false, intraOpThreadCount: 0, interOpThreadCount: 0 },
    unused: [],
  });
});

void test('onnxruntime settings, with or without the flag prefix', () => {
  const c = ort([
    '--backend-config=onnxruntime,enable-global-threadpool=1',
    'onnxruntime,intra_op_thread_count=4',
    'onnxruntime,inter_op_thread_count=2',
    'onnxruntime,default-max-batch-size=16',
  ]);
  assert.deepEqual(c, {
    enableGlobalThreadpool: true,
    intraOpThreadCount: 4,
    interOpThreadCount: 2,
    defaultMaxBatchSize: 16,
  });
});

void test('a global setting applies to onnxruntime; a specific one wins whatever the order', () => {
  assert.equal(ort(['default-max-batch-size=8']).defaultMaxBatchSize, 8);
  assert.equal(
    ort(['onnxruntime,default-max-batch-size=2', 'default-max-batch-size=8']).defaultMaxBatchSize,
    2,
  );
  assert.equal(
    ort(['default-max-batch-size=8', 'onnxruntime,default-max-batch-size=2']).defaultMaxBatchSize,
    2,
  );
  assert.equal(
    ort(['onnxruntime,default-max-batch-size=2', 'onnxruntime,default-max-batch-size=3'])
      .defaultMaxBatchSize,
    3,
    'the last of the same scope wins',
  );
  assert.equal(ort(['enable-global-threadpool=on']).enableGlobalThreadpool, true);
});

void test('other backends and unknown keys are reported, not applied', () => {
  const flags = [
    'python,shm-default-byte-size=1024',
    'onnxruntime,triton-backend-memory-tracker=true',
    'log-verbose=1',
    'tensorflow,default-max-batch-size=99',
  ];
  assert.equal(ort(flags).defaultMaxBatchSize, 4);
  const u = unused(flags);
  assert.deepEqual(
    u.map((u) => [u.backend, u.setting, u.value]),
    [
      [undefined, 'log-verbose', '1'],
      ['onnxruntime', 'triton-backend-memory-tracker', 'true'],
      ['python', 'shm-default-byte-size', '1024'],
      ['tensorflow', 'default-max-batch-size', '99'],
    ],
  );
  assert.equal(u[0]?.flag, '--backend-config=log-verbose=1');
});

void test('one flag may carry several settings for one backend', () => {
  const c = ort([
    'onnxruntime,enable-global-threadpool=1,intra_op_thread_count=6,inter_op_thread_count=2',
  ]);
  assert.equal(c.enableGlobalThreadpool, true);
  assert.equal(c.intraOpThreadCount, 6);
  assert.equal(c.interOpThreadCount, 2);
});

void test('a comma after the first "=" is part of the value', () => {
  assert.deepEqual(
    unused(['some-list=a,b']).map((u) => [u.backend, u.setting, u.value]),
    [[undefined, 'some-list', 'a,b']],
  );
});

void test('malformed flags and bad values are CONFIG_INVALID quoting the flag', () => {
  const bad = (flag: string, message: string): void => {
    assert.throws(
      () => readBackendSettings(parseBackendConfig([flag])),
      (e: unknown) =>
        e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && e.message === message,
    );
  };
  const format = "expected '[<backend name>,]<setting>=<value>'";
  bad('onnxruntime', `invalid --backend-config=onnxruntime: ${format}`);
  bad(',x=1', `invalid --backend-config=,x=1: ${format}`);
  bad('onnxruntime,x=', `invalid --backend-config=onnxruntime,x=: ${format}`);
  bad('onnxruntime,=1', `invalid --backend-config=onnxruntime,=1: ${format}`);
  bad(
    'onnxruntime,enable-global-threadpool=yes',
    'invalid --backend-config=onnxruntime,enable-global-threadpool=yes: enable-global-threadpool expects 0/1, true/false or on/off, got "yes"',
  );
  bad(
    'default-max-batch-size=-1',
    'invalid --backend-config=default-max-batch-size=-1: default-max-batch-size expects an integer >= 0, got "-1"',
  );
  bad(
    'onnxruntime,intra_op_thread_count=2.5',
    'invalid --backend-config=onnxruntime,intra_op_thread_count=2.5: intra_op_thread_count expects an integer >= 0, got "2.5"',
  );
});

void test('an overridden bad value still fails: typos never hide', () => {
  assert.throws(
    () => ort(['default-max-batch-size=x', 'onnxruntime,default-max-batch-size=2']),
    /default-max-batch-size=x/,
  );
});
