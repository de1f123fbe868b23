// --backend-config parsing: global vs onnxruntime-specific settings, defaults, unknown settings, and
// errors that quote the flag.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBackendConfig } from '../../../src/config/backend-config.js';
import { InferenceServerError } from '../../../src/errors.js';

void test('no flags: Triton defaults', () => {
  const c = parseBackendConfig([]);
  assert.deepEqual(c, {
    onnxruntime: { enableGlobalThreadpool: false, defaultMaxBatchSize: 4 },
    unknown: [],
  });
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.onnxruntime) && Object.isFrozen(c.unknown));
});

void test('onnxruntime settings, with or without the flag prefix', () => {
  const c = parseBackendConfig([
    '--backend-config=onnxruntime,enable-global-threadpool=1',
    'onnxruntime,intra_op_thread_count=4',
    'onnxruntime,inter_op_thread_count=2',
    'onnxruntime,default-max-batch-size=16',
  ]);
  assert.deepEqual(c.onnxruntime, {
    enableGlobalThreadpool: true,
    intraOpThreadCount: 4,
    interOpThreadCount: 2,
    defaultMaxBatchSize: 16,
  });
});

void test('a global setting applies to onnxruntime; a specific one wins whatever the order', () => {
  assert.equal(parseBackendConfig(['default-max-batch-size=8']).onnxruntime.defaultMaxBatchSize, 8);
  assert.equal(
    parseBackendConfig(['onnxruntime,default-max-batch-size=2', 'default-max-batch-size=8'])
      .onnxruntime.defaultMaxBatchSize,
    2,
  );
  assert.equal(
    parseBackendConfig(['default-max-batch-size=8', 'onnxruntime,default-max-batch-size=2'])
      .onnxruntime.defaultMaxBatchSize,
    2,
  );
  assert.equal(
    parseBackendConfig([
      'onnxruntime,default-max-batch-size=2',
      'onnxruntime,default-max-batch-size=3',
    ]).onnxruntime.defaultMaxBatchSize,
    3,
    'the last of the same scope wins',
  );
  assert.equal(
    parseBackendConfig(['enable-global-threadpool=on']).onnxruntime.enableGlobalThreadpool,
    true,
  );
});

void test('other backends and unknown keys are reported, not applied', () => {
  const c = parseBackendConfig([
    'python,shm-default-byte-size=1024',
    'onnxruntime,triton-backend-memory-tracker=true',
    'log-verbose=1',
    'tensorflow,default-max-batch-size=99',
  ]);
  assert.equal(c.onnxruntime.defaultMaxBatchSize, 4);
  assert.deepEqual(
    c.unknown.map((u) => [u.backend, u.setting, u.value]),
    [
      [undefined, 'log-verbose', '1'],
      ['onnxruntime', 'triton-backend-memory-tracker', 'true'],
      ['python', 'shm-default-byte-size', '1024'],
      ['tensorflow', 'default-max-batch-size', '99'],
    ],
  );
  assert.equal(c.unknown[0]?.flag, '--backend-config=log-verbose=1');
});

void test('one flag may carry several settings for one backend', () => {
  const c = parseBackendConfig([
    'onnxruntime,enable-global-threadpool=1,intra_op_thread_count=6,inter_op_thread_count=2',
  ]);
  assert.equal(c.onnxruntime.enableGlobalThreadpool, true);
  assert.equal(c.onnxruntime.intraOpThreadCount, 6);
  assert.equal(c.onnxruntime.interOpThreadCount, 2);
});

void test('a comma after the first "=" is part of the value', () => {
  const c = parseBackendConfig(['some-list=a,b']);
  assert.deepEqual(
    c.unknown.map((u) => [u.backend, u.setting, u.value]),
    [[undefined, 'some-list', 'a,b']],
  );
});

void test('malformed flags and bad values are CONFIG_INVALID quoting the flag', () => {
  const bad = (flag: string, message: string): void => {
    assert.throws(
      () => parseBackendConfig([flag]),
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
    () => parseBackendConfig(['default-max-batch-size=x', 'onnxruntime,default-max-batch-size=2']),
    /default-max-batch-size=x/,
  );
});
