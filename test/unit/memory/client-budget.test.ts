// The client-memory budget: all or nothing per reservation, released exactly once per holder, and,
// shared through a SharedArrayBuffer, one figure for every thread that serves clients; a gone
// client's garbage counted until the reclaim that frees it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import {
  BudgetAccount,
  closeLeavingGarbage,
  memoryBudget,
  sharedMemoryBudget,
} from '../../../src/memory/client-budget.js';

const MIB = 1024 * 1024;

void describe('client-memory budget', () => {
  for (const [name, make] of [
    ['local', (limit: number) => memoryBudget(limit)],
    ['shared', (limit: number) => sharedMemoryBudget(limit, new SharedArrayBuffer(8))],
  ] as const) {
    void it(`${name}: reserves all or nothing and gives back on close`, () => {
      const budget = make(100);
      const a = new BudgetAccount(budget);
      const b = new BudgetAccount(budget);
      assert.equal(a.hold(60), true);
      assert.equal(b.hold(50), false, 'over the limit: refused');
      assert.equal(budget.reservedBytes, 60, 'a refusal reserves nothing');
      assert.equal(b.hold(40), true);
      assert.equal(a.hold(10), true, 'a decrease always succeeds');
      assert.equal(budget.reservedBytes, 50);
      assert.equal(a.peak, 60, 'the most it kept at once');
      assert.equal(a.closed, false);
      assert.equal(a.close(), 10);
      assert.equal(a.closed, true);
      assert.equal(a.close(), 0, 'once');
      assert.equal(a.hold(99), true, 'a closed account changes nothing');
      assert.equal(budget.reservedBytes, 40);
      const c = new BudgetAccount(budget);
      assert.equal(c.hold(30), true);
      const { closed, release } = c.closeKeeping(20);
      assert.equal(closed, 30);
      assert.equal(budget.reservedBytes, 60, 'the kept 20 stay reserved after the close');
      release();
      release();
      assert.equal(budget.reservedBytes, 40, 'given back once');
      const unlimited = make(0);
      assert.equal(unlimited.tryReserve(2 ** 40), true);
      assert.equal(unlimited.reservedBytes, 2 ** 40);
    });
  }

  void it('shared: threads reserving at once never take more than the limit together', async () => {
    const counter = new SharedArrayBuffer(8);
    // Each worker draws on the same counter through the real module, as a front-end thread does.
    const source = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.module).then(({ sharedMemoryBudget }) => {
        const budget = sharedMemoryBudget(workerData.limit, workerData.counter);
        let got = 0;
        for (let i = 0; i < 20000; i++) if (budget.tryReserve(1)) got++;
        parentPort.postMessage(got);
      });`;
    const module = new URL('../../../src/memory/client-budget.js', import.meta.url).href;
    const budget = sharedMemoryBudget(30000, counter);
    const takers = [0, 1, 2].map(
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(source, {
            eval: true,
            workerData: { counter, limit: 30000, module },
          });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    );
    let mine = 0;
    for (let i = 0; i < 20000; i++) if (budget.tryReserve(1)) mine++;
    const theirs = await Promise.all(takers);
    const total = mine + theirs.reduce((a, b) => a + b, 0);
    assert.equal(total, 30000, `${mine} + ${theirs.join(' + ')}`);
    assert.equal(budget.reservedBytes, 30000);
  });

  void it("keeps a gone client's garbage reserved until the reclaim round has trimmed", async () => {
    const budget = memoryBudget(256 * MIB);
    const small = new BudgetAccount(budget);
    small.hold(MIB);
    closeLeavingGarbage(small);
    assert.equal(budget.reservedBytes, 0, 'below the reclaim threshold: given back at once');
    const big = new BudgetAccount(budget);
    big.hold(40 * MIB);
    big.hold(30 * MIB);
    closeLeavingGarbage(big);
    assert.equal(big.closed, true);
    assert.equal(budget.reservedBytes, 30 * MIB, 'what it held stays counted');
    closeLeavingGarbage(big);
    assert.equal(budget.reservedBytes, 30 * MIB, 'a second close changes nothing');
    // The process's reclaimer: a quiet second, the round, then its trim a second later.
    const deadline = Date.now() + 10_000;
    while (budget.reservedBytes !== 0 && Date.now() < deadline) await sleep(100);
    assert.equal(budget.reservedBytes, 0, 'given back after the trim');
  });
});
