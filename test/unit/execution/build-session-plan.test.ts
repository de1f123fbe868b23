// Session plans from a model's OrtParameters: every field a session takes, thread counts from the
// budget, and the per-GPU instance plans. Reading the parameters is tested in
// test/unit/execution/onnxruntime/config/ort-parameters.test.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  buildInstanceGroupPlans,
  buildSessionPlan,
} from '../../../src/execution/onnxruntime/build-session-plan.js';
import { planThreadBudget } from '../../../src/execution/thread-budget.js';
import { modelConfig, ortOf, type ConfigOptions } from './model-config-fixture.js';

const CPU = { kind: 'KIND_CPU' } as const;
const THREADS = { intraOpNumThreads: 3, interOpNumThreads: 2 };
const invalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && pattern.test(e.message);
const planFor = (options: ConfigOptions = {}) =>
  buildSessionPlan(ortOf(modelConfig(options)), CPU, THREADS);

void describe('buildSessionPlan', () => {
  void it('defaults: sequential, all optimizations, arena and pattern on, CPU only', () => {
    const plan = planFor();
    assert.deepEqual(plan, {
      intraOpNumThreads: 3,
      interOpNumThreads: 2,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      enableCpuMemArena: true,
      enableMemPattern: true,
      configEntries: {},
      executionProviders: [{ name: 'cpu', options: {} }],
    });
    assert.ok(Object.isFrozen(plan));
  });

  void it('takes thread counts from the budget, not from the parameters', () => {
    assert.equal(planFor({ parameters: { intra_op_thread_count: '7' } }).intraOpNumThreads, 3);
  });

  void it('execution_mode "1" is parallel, "0" sequential, anything else CONFIG_INVALID', () => {
    const mode = (v: string) => planFor({ parameters: { execution_mode: v } }).executionMode;
    assert.equal(mode('1'), 'parallel');
    assert.equal(mode('0'), 'sequential');
    assert.throws(
      () => mode('7'),
      invalid(
        /^model 'simple': parameter "execution_mode" expects "0" \(sequential\) or "1" \(parallel\), got "7"$/,
      ),
    );
  });

  void it('enable_mem_arena / enable_mem_pattern accept Triton’s boolean spellings', () => {
    for (const [v, expected] of [
      ['0', false],
      ['1', true],
      ['false', false],
      ['TRUE', true],
      ['off', false],
      ['on', true],
    ] as const) {
      const plan = planFor({ parameters: { enable_mem_arena: v, enable_mem_pattern: v } });
      assert.equal(plan.enableCpuMemArena, expected, v);
      assert.equal(plan.enableMemPattern, expected, v);
    }
    assert.throws(
      () => planFor({ parameters: { enable_mem_arena: 'yes' } }),
      invalid(/"enable_mem_arena" expects a boolean .* got "yes"/),
    );
  });

  void it('passes every session.* parameter through as a config entry, spinning included', () => {
    const plan = planFor({
      parameters: {
        'session.intra_op.allow_spinning': '0',
        'session.use_device_allocator_for_initializers': '1',
        intra_op_thread_count: '2',
        unrelated: 'x',
      },
    });
    assert.deepEqual(plan.configEntries, {
      'session.intra_op.allow_spinning': '0',
      'session.use_device_allocator_for_initializers': '1',
    });
  });

  void it('maps optimization.graph.level like the ORT backend and rejects other levels', () => {
    const level = (l?: number) => planFor({ graphLevel: l }).graphOptimizationLevel;
    assert.equal(level(undefined), 'all');
    assert.equal(level(0), 'all');
    assert.equal(level(-1), 'basic');
    assert.equal(level(1), 'extended');
    assert.equal(level(2), 'disabled');
    assert.throws(() => level(3), invalid(/graph\.level: expected -1, 0, 1 or 2, got 3/));
  });
});

void describe('buildInstanceGroupPlans', () => {
  void it('one plan per CPU group and one per GPU of a GPU group, each with its device', () => {
    const config = modelConfig({
      groups: [
        { name: 'simple_0', kind: 'KIND_CPU', count: 2, gpus: [] },
        { name: 'simple_1', kind: 'KIND_GPU', count: 1, gpus: [0, 3] },
      ],
    });
    const budget = planThreadBudget(
      [
        {
          model: 'simple',
          version: 1,
          groups: config.instance_group,
          params: ortOf(config),
        },
      ],
      { globalThreadPool: false, intraOpThreadCount: 0, interOpThreadCount: 0 },
      4,
    );
    const plans = buildInstanceGroupPlans(config, ortOf(config), 1, budget);
    assert.deepEqual(
      plans.map((p) => [p.instance, p.count, p.plan.executionProviders.map((e) => e.name)]),
      [
        ['simple_0', 2, ['cpu']],
        ['simple_1_gpu0', 1, ['cuda', 'cpu']],
        ['simple_1_gpu3', 1, ['cuda', 'cpu']],
      ],
    );
    assert.equal(plans[2]?.plan.executionProviders[0]?.deviceId, 3);
    assert.equal(plans[0]?.plan.intraOpNumThreads, 2);
  });
});
