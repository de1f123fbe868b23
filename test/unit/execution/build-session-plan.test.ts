// Session plans from model configs: every ORT backend parameter, the graph level table, bad values,
// and the per-GPU instance plans.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  buildInstanceGroupPlans,
  buildSessionPlan,
  graphOptimizationLevel,
} from '../../../src/execution/build-session-plan.js';
import { readOrtParameters } from '../../../src/execution/ort-parameters.js';
import { planThreadBudget } from '../../../src/execution/thread-budget.js';
import { modelConfig } from './model-config-fixture.js';

const CPU = { kind: 'KIND_CPU' } as const;
const THREADS = { intraOpNumThreads: 3, interOpNumThreads: 2 };
const invalid = (pattern: RegExp) => (e: unknown) =>
  e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && pattern.test(e.message);

void describe('buildSessionPlan', () => {
  void it('defaults: sequential, all optimizations, arena and pattern on, CPU only', () => {
    const plan = buildSessionPlan(modelConfig(), CPU, THREADS);
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
    const config = modelConfig({ parameters: { intra_op_thread_count: '7' } });
    assert.equal(buildSessionPlan(config, CPU, THREADS).intraOpNumThreads, 3);
  });

  void it('execution_mode "1" is parallel, "0" sequential, anything else CONFIG_INVALID', () => {
    const mode = (v: string) =>
      buildSessionPlan(modelConfig({ parameters: { execution_mode: v } }), CPU, THREADS)
        .executionMode;
    assert.equal(mode('1'), 'parallel');
    assert.equal(mode('0'), 'sequential');
    assert.throws(
      () => mode('7'),
      invalid(/^parameter "execution_mode": expected "0" or "1", got "7"$/),
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
      const plan = buildSessionPlan(
        modelConfig({ parameters: { enable_mem_arena: v, enable_mem_pattern: v } }),
        CPU,
        THREADS,
      );
      assert.equal(plan.enableCpuMemArena, expected, v);
      assert.equal(plan.enableMemPattern, expected, v);
    }
    assert.throws(
      () =>
        buildSessionPlan(modelConfig({ parameters: { enable_mem_arena: 'yes' } }), CPU, THREADS),
      invalid(/"enable_mem_arena": expected a boolean .* got "yes"/),
    );
  });

  void it('passes every session.* parameter through as a config entry, spinning included', () => {
    const plan = buildSessionPlan(
      modelConfig({
        parameters: {
          'session.intra_op.allow_spinning': '0',
          'session.use_device_allocator_for_initializers': '1',
          intra_op_thread_count: '2',
          unrelated: 'x',
        },
      }),
      CPU,
      THREADS,
    );
    assert.deepEqual(plan.configEntries, {
      'session.intra_op.allow_spinning': '0',
      'session.use_device_allocator_for_initializers': '1',
    });
  });

  void it('maps optimization.graph.level like the ORT backend and rejects other levels', () => {
    const level = (l?: number) => graphOptimizationLevel(modelConfig({ graphLevel: l }));
    assert.equal(level(undefined), 'all');
    assert.equal(level(0), 'all');
    assert.equal(level(-1), 'basic');
    assert.equal(level(1), 'extended');
    assert.equal(level(2), 'disabled');
    assert.throws(() => level(3), invalid(/graph\.level: expected -1, 0, 1 or 2, got 3/));
  });
});

void describe('readOrtParameters', () => {
  void it('parses thread counts, with 0 meaning unset, and rejects non-integers', () => {
    const p = readOrtParameters(
      modelConfig({ parameters: { intra_op_thread_count: '4', inter_op_thread_count: '0' } }),
    );
    assert.equal(p.intraOpThreadCount, 4);
    assert.equal(p.interOpThreadCount, 0);
    assert.equal(readOrtParameters(modelConfig()).intraOpThreadCount, 0);
    for (const bad of ['-1', '1.5', ' 2', 'four', '']) {
      assert.throws(
        () => readOrtParameters(modelConfig({ parameters: { intra_op_thread_count: bad } })),
        invalid(/"intra_op_thread_count": expected an integer >= 0/),
        bad,
      );
    }
  });

  void it('warns about backend keys it cannot apply', () => {
    const p = readOrtParameters(
      modelConfig({
        parameters: {
          'memory.enable_memory_arena_shrinkage': 'cpu:0',
          share_session_between_instances: '1',
        },
      }),
    );
    assert.equal(p.warnings.length, 2);
    assert.match(p.warnings[0] ?? '', /memory\.enable_memory_arena_shrinkage/);
    assert.match(p.warnings[1] ?? '', /share_session_between_instances/);
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
          params: readOrtParameters(config),
        },
      ],
      { globalThreadPool: false, intraOpThreadCount: 0, interOpThreadCount: 0 },
      4,
    );
    const plans = buildInstanceGroupPlans(config, 1, budget);
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
