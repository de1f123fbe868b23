// The onnxruntime backend's model-config fields, read once into OrtParameters: every `parameters`
// key with valid and invalid values (exact messages), session config entries, unknown keys,
// `optimization.graph.level`, and the execution providers the accelerators become.

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { InferenceServerError } from '../../../../../src/errors.js';
import { check, IO, pipeline, rejects } from '../../../config/pipeline-helpers.js';

const p = (key: string, value: string): string =>
  `${IO} parameters { key: "${key}" value { string_value: "${value}" } }`;
const ort = (text: string) => pipeline(text).ort;
const one = (key: string, value: string) => ort(p(key, value));
const bad = (key: string, value: string, expected: string): void =>
  rejects(
    p(key, value),
    'CONFIG_INVALID',
    `model 'm': parameter "${key}" expects ${expected}, got "${value}"`,
  );

const BOOLEAN = 'a boolean ("1"/"0", "true"/"false", "on"/"off")';

void test('ORT parameters: known keys are checked, unknown keys warn, session.* passes through', () => {
  for (const [key, value] of [
    ['intra_op_thread_count', '0'],
    ['inter_op_thread_count', '16'],
    ['execution_mode', '1'],
    ['enable_mem_arena', 'ON'],
    ['enable_mem_pattern', 'false'],
    ['intra_op_spinning', '0'],
    ['cudnn_conv_algo_search', '2'],
    ['gpu_mem_limit', '4294967296'],
    ['arena_extend_strategy', '1'],
    ['do_copy_in_default_stream', '1'],
    ['session.use_device_allocator_for_initializers', '1'],
  ]) {
    assert.deepEqual(check(p(key as string, value as string)), [], `${key}=${value}`);
  }
  rejects(
    p('execution_mode', '2'),
    'CONFIG_INVALID',
    `model 'm': parameter "execution_mode" expects "0" (sequential) or "1" (parallel), got "2"`,
  );
  rejects(
    p('intra_op_thread_count', '-1'),
    'CONFIG_INVALID',
    /"intra_op_thread_count" expects an integer >= 0, got "-1"/,
  );
  rejects(p('enable_mem_arena', 'yes'), 'CONFIG_INVALID', /"enable_mem_arena" expects a boolean/);
  assert.deepEqual(check(p('max_sesion_count', '3')), [
    `model 'm': parameter "max_sesion_count" is not used by the onnxruntime backend; it is kept but has no effect`,
  ]);
  assert.equal(check(p('session.', 'x')).length, 1, 'a bare "session." is not a config entry');
});

void describe('thread counts', () => {
  for (const key of ['intra_op_thread_count', 'inter_op_thread_count'] as const) {
    const field = key === 'intra_op_thread_count' ? 'intraOpThreadCount' : 'interOpThreadCount';
    void it(`${key}: an integer >= 0, with 0 or absent meaning unset`, () => {
      assert.equal(one(key, '4')[field], 4);
      assert.equal(one(key, '0')[field], 0);
      assert.equal(ort(IO)[field], 0);
      for (const value of ['-1', '1.5', ' 2', 'four', '', '1e3', '1234567890123456']) {
        bad(key, value, 'an integer >= 0');
      }
    });
  }
});

void it('execution_mode: "0" sequential (the default), "1" parallel, nothing else', () => {
  assert.equal(ort(IO).executionMode, 'sequential');
  assert.equal(one('execution_mode', '0').executionMode, 'sequential');
  assert.equal(one('execution_mode', '1').executionMode, 'parallel');
  for (const value of ['2', 'parallel', '01', '']) {
    bad('execution_mode', value, '"0" (sequential) or "1" (parallel)');
  }
});

void describe('memory flags', () => {
  for (const [key, field] of [
    ['enable_mem_arena', 'enableCpuMemArena'],
    ['enable_mem_pattern', 'enableMemPattern'],
  ] as const) {
    void it(`${key}: Triton's boolean spellings, on when absent`, () => {
      assert.equal(ort(IO)[field], true);
      for (const [value, expected] of [
        ['0', false],
        ['1', true],
        ['false', false],
        ['TRUE', true],
        ['off', false],
        ['On', true],
      ] as const) {
        assert.equal(one(key, value)[field], expected, value);
      }
      for (const value of ['yes', '2', '']) bad(key, value, BOOLEAN);
    });
  }
});

void describe('accepted without being applied, with the reason', () => {
  void it('memory.enable_memory_arena_shrinkage takes any text', () => {
    assert.deepEqual(check(p('memory.enable_memory_arena_shrinkage', 'cpu:0;gpu:0')), [
      'parameter "memory.enable_memory_arena_shrinkage" is not applied: onnxruntime-node 1.30 ' +
        'has no run-option config entries, so arena shrinkage cannot be requested',
    ]);
  });

  void it('share_session_between_instances is a boolean', () => {
    assert.deepEqual(check(p('share_session_between_instances', 'true')), [
      'parameter "share_session_between_instances" is not applied: each instance is a worker ' +
        'thread with its own session; sessions cannot be shared across threads',
    ]);
    bad('share_session_between_instances', 'sometimes', BOOLEAN);
  });

  void it('several are reported in key order', () => {
    const warnings = check(
      `${p('share_session_between_instances', '1')} parameters { key: "memory.enable_memory_arena_shrinkage" value { string_value: "cpu:0" } }`,
    );
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /memory\.enable_memory_arena_shrinkage/);
    assert.match(warnings[1] ?? '', /share_session_between_instances/);
  });
});

void it('intra_op_spinning is a boolean, applied as session.intra_op.allow_spinning', () => {
  assert.deepEqual(check(p('intra_op_spinning', 'off')), []);
  assert.deepEqual(one('intra_op_spinning', 'off').configEntries, {
    'session.intra_op.allow_spinning': '0',
  });
  assert.deepEqual(one('intra_op_spinning', 'TRUE').configEntries, {
    'session.intra_op.allow_spinning': '1',
  });
  const both = ort(
    `${p('intra_op_spinning', '0')} parameters { key: "session.intra_op.allow_spinning" value { string_value: "1" } }`,
  );
  assert.deepEqual(
    both.configEntries,
    { 'session.intra_op.allow_spinning': '1' },
    'the entry wins',
  );
  bad('intra_op_spinning', 'fast', BOOLEAN);
});

void describe('deprecated top-level CUDA parameters land on the CUDA provider', () => {
  const cuda = (key: string, value: string) =>
    one(key, value).gpuProviders.find((x) => x.name === 'cuda')?.options;
  void it('cudnn_conv_algo_search 0/1/2 -> EXHAUSTIVE/HEURISTIC/DEFAULT', () => {
    assert.deepEqual(cuda('cudnn_conv_algo_search', '0'), { cudnn_conv_algo_search: 'EXHAUSTIVE' });
    assert.deepEqual(cuda('cudnn_conv_algo_search', '1'), { cudnn_conv_algo_search: 'HEURISTIC' });
    assert.deepEqual(cuda('cudnn_conv_algo_search', '2'), { cudnn_conv_algo_search: 'DEFAULT' });
    bad('cudnn_conv_algo_search', '3', '"0", "1" or "2"');
  });
  void it('gpu_mem_limit stays text (SIZE_MAX does not fit a double)', () => {
    assert.deepEqual(cuda('gpu_mem_limit', '18446744073709551615'), {
      gpu_mem_limit: '18446744073709551615',
    });
    bad('gpu_mem_limit', '4GB', 'a byte count');
    bad('gpu_mem_limit', '123456789012345678901', 'a byte count');
  });
  void it('arena_extend_strategy 0/1 -> kNextPowerOfTwo/kSameAsRequested', () => {
    assert.deepEqual(cuda('arena_extend_strategy', '0'), {
      arena_extend_strategy: 'kNextPowerOfTwo',
    });
    assert.deepEqual(cuda('arena_extend_strategy', '1'), {
      arena_extend_strategy: 'kSameAsRequested',
    });
    bad('arena_extend_strategy', '2', '"0" or "1"');
  });
  void it('do_copy_in_default_stream is a boolean', () => {
    assert.deepEqual(cuda('do_copy_in_default_stream', '1'), { do_copy_in_default_stream: true });
    bad('do_copy_in_default_stream', 'maybe', BOOLEAN);
  });
  void it('nothing when none is present', () => {
    assert.deepEqual(ort(IO).gpuProviders, [{ name: 'cuda', options: {} }]);
  });
});

void describe('session config entries and unknown keys', () => {
  void it('every session.* key passes through, sorted by key; other keys stay out', () => {
    const result = ort(
      `${IO} parameters [
        { key: "session.use_device_allocator_for_initializers" value { string_value: "1" } },
        { key: "session.intra_op.allow_spinning" value { string_value: "0" } },
        { key: "intra_op_thread_count" value { string_value: "2" } },
        { key: "unrelated" value { string_value: "x" } } ]`,
    );
    assert.deepEqual(Object.entries(result.configEntries), [
      ['session.intra_op.allow_spinning', '0'],
      ['session.use_device_allocator_for_initializers', '1'],
    ]);
  });

  void it('a key named like an Object.prototype member is just an unknown key', () => {
    for (const key of ['__proto__', 'constructor', 'toString']) {
      assert.deepEqual(check(p(key, '1')), [
        `model 'm': parameter "${key}" is not used by the onnxruntime backend; it is kept but has no effect`,
      ]);
    }
  });

  void it('the first bad value in the map fails the load', () => {
    rejects(
      `${p('execution_mode', '9')} parameters { key: "enable_mem_arena" value { string_value: "no" } }`,
      'CONFIG_INVALID',
      /"execution_mode" expects/,
    );
  });
});

void it('optimization.graph.level maps like the ORT backend; other levels fail the load', () => {
  const level = (text: string) => ort(`${IO} optimization { ${text} }`).graphOptimizationLevel;
  assert.equal(ort(IO).graphOptimizationLevel, 'all');
  assert.equal(level('graph { }'), 'all');
  assert.equal(level('graph { level: 0 }'), 'all');
  assert.equal(level('graph { level: -1 }'), 'basic');
  assert.equal(level('graph { level: 1 }'), 'extended');
  assert.equal(level('graph { level: 2 }'), 'disabled');
  rejects(
    `${IO} optimization { graph { level: 3 } }`,
    'CONFIG_INVALID',
    'optimization.graph.level: expected -1, 0, 1 or 2, got 3',
  );
});

void describe('execution accelerators', () => {
  const accelerators = (gpu: string, cpu = '') =>
    ort(
      `${IO} optimization { execution_accelerators { gpu_execution_accelerator [ ${gpu} ] cpu_execution_accelerator [ ${cpu} ] } }`,
    );

  void it('TensorRT first, then CUDA as its fallback; CPU accelerators before the CPU provider', () => {
    const result = accelerators(
      '{ name: "tensorrt" parameters { key: "precision_mode" value: "FP16" } }, { name: "cuda" parameters { key: "tunable_op_enable" value: "1" } }',
      '{ name: "openvino" }',
    );
    assert.deepEqual(result.gpuProviders, [
      { name: 'tensorrt', options: { trt_fp16_enable: true } },
      { name: 'cuda', options: { tunable_op_enable: '1' } },
    ]);
    assert.deepEqual(result.cpuProviders, [
      { name: 'openvino', options: { device_type: 'CPU' } },
      { name: 'cpu', options: {} },
    ]);
  });

  void it('two entries for one GPU provider merge, the later winning', () => {
    const result = accelerators(
      '{ name: "cuda" parameters [ { key: "a" value: "1" }, { key: "b" value: "1" } ] }, { name: "cuda" parameters { key: "b" value: "2" } }',
    );
    assert.deepEqual(result.gpuProviders, [{ name: 'cuda', options: { a: '1', b: '2' } }]);
  });

  void it('the deprecated top-level keys win over the CUDA accelerator’s', () => {
    const result = ort(
      `${p('cudnn_conv_algo_search', '1')} parameters { key: "gpu_mem_limit" value { string_value: "1024" } }
       optimization { execution_accelerators { gpu_execution_accelerator [ { name: "cuda" parameters { key: "cudnn_conv_algo_search" value: "DEFAULT" } } ] } }`,
    );
    assert.deepEqual(result.gpuProviders, [
      { name: 'cuda', options: { cudnn_conv_algo_search: 'HEURISTIC', gpu_mem_limit: '1024' } },
    ]);
  });

  void it('WebGPU alone brings no CUDA; WebGPU beside TensorRT keeps CUDA as its fallback', () => {
    assert.deepEqual(accelerators('{ name: "webgpu" }').gpuProviders, [
      { name: 'webgpu', options: {} },
    ]);
    const withTrt = accelerators(
      '{ name: "webgpu" parameters { key: "preferredLayout" value: "NHWC" } }, { name: "tensorrt" }',
    );
    assert.deepEqual(
      withTrt.gpuProviders.map((x) => x.name),
      ['tensorrt', 'cuda', 'webgpu'],
    );
    assert.deepEqual(withTrt.gpuProviders[2]?.options, { preferredLayout: 'NHWC' });
  });

  void it('WebGPU cannot choose its GPU: a GPU group listing another id is refused', () => {
    const webgpu =
      'optimization { execution_accelerators { gpu_execution_accelerator [ { name: "webgpu" } ] } }';
    const gpus = [0, 1];
    assert.deepEqual(
      pipeline(`${IO} instance_group [ { kind: KIND_GPU count: 4 gpus: [ 0 ] } ] ${webgpu}`, gpus)
        .ort.gpuProviders,
      [{ name: 'webgpu', options: {} }],
    );
    assert.throws(
      () =>
        pipeline(
          `${IO} instance_group [ { name: "g" kind: KIND_GPU gpus: [ 0, 1 ] } ] ${webgpu}`,
          gpus,
        ),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'CONFIG_INVALID' &&
        e.message ===
          'instance group "g" of m lists gpu 1, but execution accelerator "webgpu" cannot choose a ' +
            'GPU (onnxruntime-node runs it on the first adapter the system offers): list gpus: [ 0 ], ' +
            'or run one server per GPU',
    );
  });

  void it('accelerator names must be ones the ORT backend knows, in the right list', () => {
    rejects(
      `${IO} optimization { execution_accelerators { gpu_execution_accelerator [ { name: "openvino" } ] } }`,
      'CONFIG_INVALID',
      "unknown Execution Accelerator 'openvino' is requested for m; expected one of tensorrt, cuda, webgpu",
    );
    rejects(
      `${IO} optimization { execution_accelerators { cpu_execution_accelerator [ { name: "dnnl" } ] } }`,
      'CONFIG_INVALID',
      "unknown Execution Accelerator 'dnnl' is requested for m; expected one of openvino",
    );
    rejects(
      `${IO} optimization { execution_accelerators { cpu_execution_accelerator [ { name: "cpu" } ] } }`,
      'CONFIG_INVALID',
      "unknown Execution Accelerator 'cpu' is requested for m; expected one of openvino",
    );
  });

  void it('a bad accelerator parameter fails the load on any host, naming the key', () => {
    rejects(
      `${IO} optimization { execution_accelerators { gpu_execution_accelerator [ { name: "tensorrt" parameters { key: "trt_dla_core" value: "x" } } ] } }`,
      'CONFIG_INVALID',
      'parameter "trt_dla_core": expected an integer, got "x"',
    );
  });
});

void it('the result is deeply frozen', () => {
  const result = ort(
    `${p('session.a', '1')} optimization { execution_accelerators { cpu_execution_accelerator [ { name: "openvino" } ] } }`,
  );
  assert.ok(Object.isFrozen(result));
  assert.ok(Object.isFrozen(result.configEntries));
  assert.ok(Object.isFrozen(result.cpuProviders));
  assert.ok(Object.isFrozen(result.cpuProviders[0]?.options));
});
