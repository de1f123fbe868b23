// Triton's version_policy over the version directories a model has: latest N, all, or specific.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VersionPolicy } from '../../../src/config/model-config.js';
import { selectVersions } from '../../../src/repository/version-policy.js';
import { configFromText } from './model-version-fixture.js';

const latest = (n: number): VersionPolicy => ({ latest: { num_versions: n } });

void describe('selectVersions', () => {
  const cases: readonly [string, VersionPolicy, readonly number[], readonly number[]][] = [
    ['latest 1 serves the highest', latest(1), [3, 1, 2], [3]],
    ['latest 2 serves the two highest, ascending', latest(2), [1, 10, 2, 9], [9, 10]],
    ['latest N over fewer versions serves them all', latest(5), [2, 1], [1, 2]],
    ['latest with no versions serves none', latest(1), [], []],
    ['all serves every version, ascending', { all: {} }, [3, 1, 2], [1, 2, 3]],
    [
      'specific serves the listed ones present',
      { specific: { versions: [1, 3, 7] } },
      [1, 2, 3],
      [1, 3],
    ],
    ['specific with none present serves none', { specific: { versions: [4] } }, [1, 2], []],
  ];
  for (const [what, policy, available, expected] of cases) {
    void it(what, () => {
      assert.deepEqual(selectVersions(policy, available), expected);
    });
  }

  void it('does not reorder the caller’s array', () => {
    const available = [3, 1, 2];
    selectVersions({ all: {} }, available);
    assert.deepEqual(available, [3, 1, 2]);
  });

  void it('reads the policies config.pbtxt spells, defaulting to the latest one', () => {
    const io =
      'input { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } output { name: "y" data_type: TYPE_FP32 dims: [ 1 ] }';
    const present = [1, 2, 3];
    const select = (policy: string): number[] =>
      selectVersions(configFromText(`${policy} ${io}`).version_policy, present);
    assert.deepEqual(select(''), [3]);
    assert.deepEqual(select('version_policy: { latest: { num_versions: 2 } }'), [2, 3]);
    assert.deepEqual(select('version_policy: { all: {} }'), [1, 2, 3]);
    assert.deepEqual(select('version_policy: { specific: { versions: [ 1, 3 ] } }'), [1, 3]);
  });
});
