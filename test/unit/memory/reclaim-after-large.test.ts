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

interface Setup {
  clock: ManualClock;
  reclaimer: LargeGarbageReclaimer;
  collections: number[];
  trims: number[];
}

function setup(followUpMs = 0): Setup {
  const clock = new ManualClock();
  const collections: number[] = [];
  const trims: number[] = [];
  const reclaimer = new LargeGarbageReclaimer({
    clock,
    quietMs: 1000,
    maxDelayMs: 5000,
    thresholdBytes: 16 * MIB,
    collect: () => collections.push(clock.now()),
    trim: () => trims.push(clock.now()),
    trimDelayMs: 1000,
    followUpMs,
  });
  return { clock, reclaimer, collections, trims };
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

  void it('trims the native heap once, the trim delay after each round of collections', () => {
    const { clock, reclaimer, collections, trims } = setup();
    reclaimer.note(64 * MIB);
    clock.advance(1000);
    assert.deepEqual(collections, [1000]);
    assert.deepEqual(trims, [], 'not in the same turn as the GC: the sweeper has not freed yet');
    clock.advance(1000);
    assert.deepEqual(trims, [2000]);
    // Rounds in a row: a trim only where no notice came between its round and its time.
    reclaimer.note(64 * MIB);
    clock.advance(1000);
    assert.deepEqual(collections, [1000, 3000]);
    reclaimer.note(64 * MIB);
    clock.advance(900);
    reclaimer.note(64 * MIB);
    clock.advance(5000);
    assert.deepEqual(collections, [1000, 3000, 4900]);
    assert.deepEqual(trims, [2000, 5900], 'not at 4000: a notice came at 3900');
  });

  void it('has every live idle holder drop its idle buffers when a round fires', () => {
    const { clock, reclaimer, collections } = setup();
    const drops: number[] = [];
    const holder = { dropIdle: () => drops.push(clock.now()) };
    reclaimer.dropsIdle(holder);
    reclaimer.note(64 * MIB);
    assert.deepEqual(drops, [], 'nothing before the round');
    clock.advance(1000);
    assert.deepEqual(drops, [1000]);
    assert.deepEqual(collections, [1000], 'dropped before the collection, which frees them');
  });

  void it('runs one follow-up round after a round, unless a new round starts first', () => {
    const { clock, reclaimer, collections, trims } = setup(3000);
    const asked: number[] = [];
    reclaimer.note(64 * MIB, () => asked.push(clock.now()));
    clock.advance(10_000);
    assert.deepEqual(collections, [1000, 4000], 'the round, then its follow-up');
    assert.deepEqual(asked, [1000, 4000], 'the worker is asked again');
    assert.deepEqual(trims, [2000, 5000]);
    // A notice while a follow-up is pending replaces it with a new round, which has its own.
    reclaimer.note(64 * MIB, () => asked.push(clock.now()));
    clock.advance(2000);
    reclaimer.note(64 * MIB);
    clock.advance(10_000);
    assert.deepEqual(collections, [1000, 4000, 11_000, 13_000, 16_000]);
  });

  void it('runs each after-trim callback once, after the trim of the round it joined', () => {
    const { clock, reclaimer, trims } = setup();
    const released: string[] = [];
    reclaimer.note(1, undefined, () => released.push('small'));
    assert.deepEqual(released, ['small'], 'below the threshold: at once, nothing scheduled');
    reclaimer.note(64 * MIB, undefined, () => released.push(`a@${clock.now()}`));
    clock.advance(1500);
    reclaimer.note(64 * MIB, undefined, () => released.push(`b@${clock.now()}`));
    clock.advance(10_000);
    assert.deepEqual(trims, [3500], 'b came between the first round and its trim: skipped');
    assert.deepEqual(released, ['small', 'a@2000', 'b@3500'], 'released on time all the same');
  });
});
