// The rate limiter's resource table against Triton's rate_limiter.md examples and its
// ResourceManager's checks: counts default to the largest demand, explicit counts apply per device
// or on one device, a demand above an explicit count or a name both global and per-device is
// refused in Triton's words.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeTable,
  resourceTable,
  type ResourceDemand,
} from '../../../../src/scheduler/rate-limit/resource-table.js';
import { InferenceServerError } from '../../../../src/errors.js';

const on = (place: ResourceDemand['place'], spec: Record<string, number>): ResourceDemand[] =>
  Object.entries(spec).map(([name, count]) => ({ name, place, count }));

void describe('resource table', () => {
  void it("without explicit resources, each count is the largest demand (rate_limiter.md's A, B, C)", () => {
    const table = resourceTable(
      [on(0, { R1: 4, R2: 4 }), on(0, { R2: 5, R3: 10, R4: 5 }), on(0, { R1: 1, R3: 7, R4: 2 })],
      [],
    );
    assert.deepEqual(describeTable(table), { 'device 0': { R1: 4, R2: 5, R3: 10, R4: 5 } });
  });

  void it("explicit resources: per device, on one device, and global (rate_limiter.md's two-device example)", () => {
    const table = resourceTable(
      [on(0, { R1: 1, R2: 1 }), on(1, { R1: 1, R2: 1 }), on('global', { R3: 1 })],
      [
        { name: 'R1', count: 10 },
        { name: 'R2', count: 5, device: 0 },
        { name: 'R2', count: 8, device: 1 },
        { name: 'R3', count: 2 },
      ],
    );
    assert.deepEqual(describeTable(table), {
      GLOBAL: { R3: 2 },
      'device 0': { R1: 10, R2: 5 },
      'device 1': { R1: 10, R2: 8 },
    });
  });

  void it('refuses a demand above the explicit count, and a resource not given at all', () => {
    const refused = (demands: ResourceDemand[][], message: string) =>
      assert.throws(
        () => resourceTable(demands, [{ name: 'resource1', count: 1 }]),
        (e: unknown) =>
          e instanceof InferenceServerError && e.code === 'CONFIG_INVALID' && e.message === message,
      );
    refused(
      [on(0, { resource1: 4 })],
      'Resource count for "resource1" is limited to 1 which will prevent scheduling of one or ' +
        'more model instances, the minimum required count is 4',
    );
    refused(
      [on('global', { other: 2 })],
      'Resource count for "other" is limited to 0 which will prevent scheduling of one or ' +
        'more model instances, the minimum required count is 2',
    );
  });

  void it('refuses a name that is both global and per-device', () => {
    assert.throws(() => resourceTable([on('global', { R: 1 }), on(0, { R: 1 })], []), {
      message:
        'Resource "R" is present as both global and device-specific resource in the model configuration.',
    });
  });
});
