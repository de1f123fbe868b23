// Where a model's instances run, shared by every backend that runs instances: one pool per CPU
// group, one per listed GPU of a GPU group, named as Triton names them; and the instance total the
// shadow runner weighs in-flight requests against, read from those same pools.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InstanceKind } from '../../../src/config/model-config.js';
import { instancePlacements, instanceTotal } from '../../../src/execution/instance-groups.js';

void describe('instancePlacements', () => {
  void it('one pool per CPU group, one per listed GPU (gpu 0 when none is listed)', () => {
    const placements = instancePlacements({
      instance_group: [
        { name: 'm_0', kind: 'KIND_CPU', count: 2, gpus: [] },
        { name: 'm_1', kind: 'KIND_GPU', count: 3, gpus: [1, 2] },
        { name: 'm_2', kind: 'KIND_GPU', count: 1, gpus: [] },
      ],
    });
    assert.deepEqual(placements, [
      { instance: 'm_0', count: 2, group: 'm_0', kind: 'KIND_CPU' },
      { instance: 'm_1_gpu1', count: 3, group: 'm_1', kind: 'KIND_GPU', deviceId: 1 },
      { instance: 'm_1_gpu2', count: 3, group: 'm_1', kind: 'KIND_GPU', deviceId: 2 },
      { instance: 'm_2_gpu0', count: 1, group: 'm_2', kind: 'KIND_GPU', deviceId: 0 },
    ]);
  });
});

void describe('instanceTotal', () => {
  const total = (...groups: Array<[kind: InstanceKind, count: number, gpus: number[]]>): number =>
    instanceTotal({
      instance_group: groups.map(([kind, count, gpus], k) => ({
        name: `m_${k}`,
        kind,
        count,
        gpus,
      })),
    });

  void it('counts a CPU group once and a GPU group once per listed GPU (once when none is listed)', () => {
    assert.equal(total(['KIND_CPU', 2, []]), 2);
    assert.equal(total(['KIND_GPU', 3, [1, 2]]), 6);
    assert.equal(total(['KIND_GPU', 3, []]), 3);
    assert.equal(total(['KIND_MODEL', 1, []]), 1);
    assert.equal(total(['KIND_CPU', 2, []], ['KIND_GPU', 1, [0, 1, 3]], ['KIND_GPU', 4, []]), 9);
    assert.equal(total(), 0);
  });

  void it('is the sum of the pools the backends start', () => {
    const config = {
      instance_group: [
        { name: 'a', kind: 'KIND_CPU' as const, count: 4, gpus: [] },
        { name: 'b', kind: 'KIND_GPU' as const, count: 2, gpus: [5, 7] },
      ],
    };
    const pools = instancePlacements(config).map((p) => p.count);
    assert.deepEqual(pools, [4, 2, 2]);
    assert.equal(instanceTotal(config), 8);
  });
});
