// The bench reports' one median: odd and even lengths, order not assumed, the empty case given.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { median } from '../../../bench/measure/median.js';

void describe('median', () => {
  void it('takes the middle value, or the mean of the two middle ones', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    const xs = [7, 1, 3];
    assert.equal(median(xs), 3);
    assert.deepEqual(xs, [7, 1, 3], 'the list is not sorted in place');
  });

  void it('answers whenEmpty for no values (NaN unless given)', () => {
    assert.ok(Number.isNaN(median([])));
    assert.equal(median([], 0), 0);
  });
});
