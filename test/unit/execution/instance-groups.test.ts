// Where a model's instances run, shared by every backend that runs instances: one pool per CPU
// group, one per listed GPU of a GPU group, named as Triton names them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instancePlacements } from '../../../src/execution/instance-groups.js';

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
