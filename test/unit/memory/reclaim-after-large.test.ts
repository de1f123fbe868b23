// The large-garbage reclaimer's schedule, on a manual clock: below the threshold nothing is
// scheduled; a notice collects after the quiet time; notices keep postponing it, but never past the
// longest delay after the first; each instance's worker collection is asked for once per round.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LargeGarbageReclaimer,
  type ReclaimClock,
} from '../../../src/memory/reclaim-after-large.js';

const MIB = 1024 * 1024;

/** A clock whose time moves only when the test says so, firing due timers in order. */
class ManualClock implements ReclaimClock {
  #now = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;

  now(): number {
    return this.#now;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fn();
    }
    this.#now = end;
  }
}

function setup(): { clock: ManualClock; reclaimer: LargeGarbageReclaimer; collections: number[] } {
  const clock = new ManualClock();
  const collections: number[] = [];
  const reclaimer = new LargeGarbageReclaimer({
    clock,
    quietMs: 1000,
    maxDelayMs: 5000,
    thresholdBytes: 16 * MIB,
    collect: () => collections.push(clock.now()),
  });
  return { clock, reclaimer, collections };
}

void describe('LargeGarbageReclaimer', () => {
  void it('ignores garbage below the threshold', () => {
    const { clock, reclaimer, collections } = setup();
    reclaimer.note(16 * MIB - 1);
    assert.equal(reclaimer.pending, false);
    clock.advance(10_000);
    assert.deepEqual(collections, []);
  });

  void it('collects once, after the quiet time', () => {
    const { clock, reclaimer, collections } = setup();
    reclaimer.note(64 * MIB);
    clock.advance(999);
    assert.deepEqual(collections, []);
    clock.advance(1);
    assert.deepEqual(collections, [1000]);
    assert.equal(reclaimer.pending, false);
    clock.advance(10_000);
    assert.deepEqual(collections, [1000]);
  });

  void it('postpones while notices keep coming, but no later than the longest delay', () => {
    const { clock, reclaimer, collections } = setup();
    // A notice every 600 ms: never 1 s of quiet, so the 5 s cap decides.
    for (let t = 0; t < 7000; t += 600) {
      reclaimer.note(20 * MIB);
      clock.advance(600);
    }
    assert.equal(collections[0], 5000);
    // The next round starts with the first notice after the collection (at 5400); its last notice
    // came at 6600, so it collects after 1 s of quiet.
    assert.equal(collections.length, 1);
    clock.advance(2000);
    assert.deepEqual(collections, [5000, 7600]);
  });

  void it('asks each instance that held large garbage to collect, once per round', () => {
    const { clock, reclaimer, collections } = setup();
    const asked: string[] = [];
    const a = (): void => void asked.push('a');
    const b = (): void => void asked.push('b');
    reclaimer.note(32 * MIB, a);
    reclaimer.note(32 * MIB, a);
    reclaimer.note(32 * MIB, b);
    reclaimer.note(1 * MIB, b); // below the threshold: not a notice at all
    clock.advance(1000);
    assert.deepEqual(collections, [1000]);
    assert.deepEqual(asked, ['a', 'b']);
    reclaimer.note(32 * MIB);
    clock.advance(1000);
    assert.deepEqual(asked, ['a', 'b'], 'a round without instances asks none');
    assert.deepEqual(collections, [1000, 2000]);
  });
});
