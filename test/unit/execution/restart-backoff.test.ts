// The restart back-off: the first failure is replaced at once, then each further consecutive
// failure doubles the wait, up to the cap, without ever overflowing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  RESTART_BASE_DELAY_MS,
  RESTART_MAX_DELAY_MS,
  restartDelayMs,
} from '../../../src/execution/restart-backoff.js';

void describe('restartDelayMs', () => {
  void it('replaces a first failure at once', () => {
    assert.equal(restartDelayMs(0), 0);
    assert.equal(restartDelayMs(1), 0);
  });

  void it('doubles from the base delay with each further consecutive failure', () => {
    assert.deepEqual(
      [2, 3, 4, 5, 6].map(restartDelayMs),
      [1, 2, 4, 8, 16].map((k) => k * RESTART_BASE_DELAY_MS),
    );
  });

  void it('is capped, however long the loop runs', () => {
    assert.equal(restartDelayMs(9), RESTART_MAX_DELAY_MS);
    assert.equal(restartDelayMs(10_000), RESTART_MAX_DELAY_MS);
    assert.equal(restartDelayMs(Number.MAX_SAFE_INTEGER), RESTART_MAX_DELAY_MS);
  });

  void it('never shortens as failures accumulate', () => {
    for (let k = 1; k < 100; k++) assert.ok(restartDelayMs(k + 1) >= restartDelayMs(k), `${k}`);
  });
});
