// The process-wide thread budget: per-session mode (cores divided among CPU instances, explicit values
// win) and global mode (one intra-op budget split across every instance).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { InstanceGroupConfig } from '../../../src/config/model-config.js';
import { InferenceServerError } from '../../../src/errors.js';
import { planThreadBudget, threadsFor } from '../../../src/execution/thread-budget.js';
import type {
  BackendThreadConfig,
  ModelThreadDemand,
} from '../../../src/execution/thread-budget.js';

const PER_SESSION: BackendThreadConfig = {
  globalThreadPool: false,
  intraOpThreadCount: 0,
  interOpThreadCount: 0,
};
const global = (intra: number, inter = 0): BackendThreadConfig => ({
  globalThreadPool: true,
  intraOpThreadCount: intra,
  interOpThreadCount: inter,
});

const cpuGroup = (name: string, count: number): InstanceGroupConfig => ({
  name,
  kind: 'KIND_CPU',
  count,
  gpus: [],
});

function demand(
  model: string,
  groups: readonly InstanceGroupConfig[],
  params: Partial<ModelThreadDemand['params']> = {},
): ModelThreadDemand {
  return {
    model,
    version: 1,
    groups,
    params: {
      intraOpThreadCount: 0,
      interOpThreadCount: 0,
      executionMode: 'sequential',
      ...params,
    },
  };
}

void describe('per-session thread pools (default)', () => {
  void it('divides the cores among all CPU instances when intra_op_thread_count is unset', () => {
    const b = planThreadBudget(
      [demand('a', [cpuGroup('a_0', 2)]), demand('b', [cpuGroup('b_0', 2)])],
      PER_SESSION,
      8,
    );
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 2);
    assert.equal(threadsFor(b, 'b', 1, 'b_0').intraOpNumThreads, 2);
  });

  void it('gives at least 1 thread each when instances outnumber cores', () => {
    const b = planThreadBudget([demand('a', [cpuGroup('a_0', 5)])], PER_SESSION, 2);
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 1);
  });

  void it('hands the remainder to whole groups, in order', () => {
    // 7 cores over groups of 2 and 1 instances: base 2 each (6), one left over -> the 1-instance group.
    const b = planThreadBudget(
      [demand('a', [cpuGroup('a_0', 2), cpuGroup('a_1', 1)])],
      PER_SESSION,
      7,
    );
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 2);
    assert.equal(threadsFor(b, 'a', 1, 'a_1').intraOpNumThreads, 3);
  });

  void it('an explicit intra_op_thread_count wins, and oversubscription is warned about', () => {
    const b = planThreadBudget(
      [
        demand('a', [cpuGroup('a_0', 2)], { intraOpThreadCount: 4 }),
        demand('b', [cpuGroup('b_0', 2)]),
      ],
      PER_SESSION,
      4,
    );
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 4);
    assert.equal(threadsFor(b, 'b', 1, 'b_0').intraOpNumThreads, 1);
    assert.equal(b.entries[0]?.source, 'explicit');
    assert.match(b.warnings.join('\n'), /CPU instances use 10 intra-op threads on 4 core/);
  });

  void it('inter-op threads: 1 in sequential mode, the core share in parallel mode, explicit wins', () => {
    const b = planThreadBudget(
      [
        demand('s', [cpuGroup('s_0', 1)]),
        demand('p', [cpuGroup('p_0', 1)], { executionMode: 'parallel' }),
        demand('e', [cpuGroup('e_0', 1)], { executionMode: 'parallel', interOpThreadCount: 5 }),
      ],
      PER_SESSION,
      6,
    );
    assert.equal(threadsFor(b, 's', 1, 's_0').interOpNumThreads, 1);
    assert.equal(threadsFor(b, 'p', 1, 'p_0').interOpNumThreads, 2);
    assert.equal(threadsFor(b, 'e', 1, 'e_0').interOpNumThreads, 5);
  });

  void it('GPU instances with no explicit count get 1 intra-op thread and do not share the cores', () => {
    const gpu: InstanceGroupConfig = { name: 'g_0', kind: 'KIND_GPU', count: 2, gpus: [0, 1] };
    const b = planThreadBudget([demand('g', [gpu, cpuGroup('g_1', 2)])], PER_SESSION, 8);
    const g = b.entries.find((e) => e.group === 'g_0');
    assert.equal(g?.sessions, 4, 'count instances on each listed GPU');
    assert.equal(g?.intraOpNumThreads, 1);
    assert.equal(threadsFor(b, 'g', 1, 'g_1').intraOpNumThreads, 4);
  });

  void it('JavaScript instances open no ORT session: no share of the cores, no warning', () => {
    const js: ModelThreadDemand = { ...demand('ocr', [cpuGroup('ocr_0', 2)]), ortSessions: false };
    for (const backend of [PER_SESSION, global(2)]) {
      const b = planThreadBudget([demand('det', [cpuGroup('det_0', 1)]), js], backend, 2);
      assert.equal(threadsFor(b, 'det', 1, 'det_0').intraOpNumThreads, 2, 'ORT gets every core');
      assert.deepEqual(threadsFor(b, 'ocr', 1, 'ocr_0'), {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
      });
      assert.equal(b.entries.find((e) => e.model === 'ocr')?.source, 'no-ort-session');
      assert.deepEqual(b.warnings, []);
    }
  });

  void it('logs a summary and one line per group with every session’s threads', () => {
    const b = planThreadBudget([demand('a', [cpuGroup('a_0', 2)])], PER_SESSION, 2);
    assert.equal(b.log.length, 2);
    assert.match(b.log[0] ?? '', /per-session pools; 2 core\(s\) divided among 2 CPU/);
    assert.equal(b.log[1], '  a v1 a_0 (KIND_CPU ×2): intra_op=1 inter_op=1 [core-share]');
  });
});

void describe('global thread pool (enable-global-threadpool=1)', () => {
  void it('splits intra_op_thread_count across every instance of every model', () => {
    const b = planThreadBudget(
      [demand('a', [cpuGroup('a_0', 2)]), demand('b', [cpuGroup('b_0', 1)])],
      global(7),
      2,
    );
    // 7 over 3 sessions: base 2 (6 used); the leftover 1 thread goes to b_0 (a_0 would need 2).
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 2);
    assert.equal(threadsFor(b, 'b', 1, 'b_0').intraOpNumThreads, 3);
    assert.ok(b.entries.every((e) => e.source === 'global-share'));
  });

  void it('fails the load when instances outnumber the budget, naming the numbers', () => {
    assert.throws(
      () =>
        planThreadBudget(
          [demand('a', [cpuGroup('a_0', 2)]), demand('b', [cpuGroup('b_0', 2)])],
          global(3),
          8,
        ),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'CONFIG_INVALID' &&
        /intra_op_thread_count=3 cannot give each of the 4 model instances \(a v1 ×2, b v1 ×2\)/.test(
          e.message,
        ),
    );
  });

  void it('uses the core count as the budget when intra_op_thread_count is not given', () => {
    const b = planThreadBudget([demand('a', [cpuGroup('a_0', 2)])], global(0), 6);
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 3);
  });

  void it('ignores model-config thread parameters with a warning, as Triton does', () => {
    const b = planThreadBudget(
      [demand('a', [cpuGroup('a_0', 1)], { intraOpThreadCount: 16 })],
      global(2),
      8,
    );
    assert.equal(threadsFor(b, 'a', 1, 'a_0').intraOpNumThreads, 2);
    assert.match(
      b.warnings.join('\n'),
      /model a v1: .* ignored because enable-global-threadpool=1/,
    );
  });

  void it('splits inter_op_thread_count across the parallel-mode instances only', () => {
    const b = planThreadBudget(
      [
        demand('p', [cpuGroup('p_0', 2)], { executionMode: 'parallel' }),
        demand('s', [cpuGroup('s_0', 1)]),
      ],
      global(3, 4),
      8,
    );
    assert.equal(threadsFor(b, 'p', 1, 'p_0').interOpNumThreads, 2);
    assert.equal(threadsFor(b, 's', 1, 's_0').interOpNumThreads, 1);
  });

  void it('property: the intra-op threads of all sessions never exceed the budget, each gets >= 1', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 64 }),
        (counts, n) => {
          const models = counts.map((c, i) => demand(`m${i}`, [cpuGroup(`m${i}_0`, c)]));
          const sessions = counts.reduce((a, b) => a + b, 0);
          if (sessions > n) {
            assert.throws(() => planThreadBudget(models, global(n), 2));
            return true;
          }
          const b = planThreadBudget(models, global(n), 2);
          const used = b.entries.reduce((a, e) => a + e.intraOpNumThreads * e.sessions, 0);
          return used <= n && b.entries.every((e) => e.intraOpNumThreads >= 1);
        },
      ),
    );
  });
});

void describe('threadsFor', () => {
  void it('is INTERNAL for a group the budget was not planned with', () => {
    const b = planThreadBudget([demand('a', [cpuGroup('a_0', 1)])], PER_SESSION, 2);
    assert.throws(
      () => threadsFor(b, 'a', 2, 'a_0'),
      (e: unknown) => e instanceof InferenceServerError && e.code === 'INTERNAL',
    );
  });
});
