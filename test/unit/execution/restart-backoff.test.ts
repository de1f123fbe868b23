// The restart back-off: the first failure is replaced at once, then each further consecutive
// failure doubles the wait, up to the cap, without ever overflowing; and one instance's schedule
// on a manual clock: what resets the count, and its pending restart.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  RESTART_BASE_DELAY_MS,
  RESTART_MAX_DELAY_MS,
  RESTART_STABLE_MS,
  RestartSchedule,
  restartDelayMs,
} from '../../../src/execution/restart-backoff.js';
import { ManualClock } from '../scheduler/manual-clock.js';

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

void describe('RestartSchedule', () => {
  const ms = (n: number): number => n * 1e6;

  void it('counts losses of workers that never answered, and starts again after a healthy one', () => {
    const clock = new ManualClock();
    const r = new RestartSchedule(clock);
    r.started();
    r.lost(false);
    assert.equal(r.delayMs(), 0, 'a first loss is replaced at once');
    r.started();
    r.failedStart();
    r.started();
    r.ready();
    r.lost(true);
    assert.equal(r.delayMs(), 2 * RESTART_BASE_DELAY_MS, 'ready but silent and brief: a third');
    r.started();
    r.ready();
    r.answered();
    r.lost(true);
    assert.equal(r.delayMs(), 0, 'one that answered resets the count');
    r.started();
    r.ready();
    clock.advance(ms(RESTART_STABLE_MS));
    r.lost(true);
    assert.equal(r.delayMs(), 0, 'so does one that stayed up long enough');
    r.started();
    r.answered();
    r.lost(false);
    assert.equal(r.delayMs(), RESTART_BASE_DELAY_MS, 'an answer without a ready session does not');
  });

  void it('fires a pending restart once its wait is over, and cancel() drops it', () => {
    const clock = new ManualClock();
    const r = new RestartSchedule(clock);
    let fired = 0;
    assert.equal(r.pending, undefined);
    r.failedStart();
    r.failedStart();
    r.wait(r.delayMs(), () => (fired += 1));
    clock.advance(ms(100));
    assert.deepEqual(r.pending, { failures: 2, remainingMs: RESTART_BASE_DELAY_MS - 100 });
    clock.advance(ms(RESTART_BASE_DELAY_MS));
    assert.equal(fired, 1);
    assert.equal(r.pending, undefined);
    r.wait(1000, () => (fired += 1));
    r.cancel();
    clock.advance(ms(2000));
    assert.equal(fired, 1);
    assert.equal(r.pending, undefined);
  });
});
