// The rate limiter's accounting without workers: who may run, who waits, in which order waiting
// instances are woken (Triton's exec_count * priority, first staged on ties, head of line only),
// and what a model's registration and removal do to the table.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter, type ModelGate } from '../../../../src/scheduler/rate-limit/rate-limiter.js';
import { parseRateLimitSettings } from '../../../../src/scheduler/rate-limit/rate-limit-settings.js';

const limiter = (...resources: string[]) =>
  new RateLimiter(parseRateLimitSettings('execution_count', resources));

/** One instance named `i` asking for `spec` (name -> count, global). */
function model(
  l: RateLimiter,
  name: string,
  spec: Record<string, number>,
  priority = 0,
  global = true,
): ModelGate {
  const resources = Object.entries(spec).map(([n, count]) => ({ name: n, global, count }));
  return l.register(name, 1, [{ name: 'i', device: 0, resources, priority }]);
}

/** Admits and records, in `order`, when the admission was granted. */
function admit(gate: ModelGate, label: string, order: string[]): void {
  const wait = gate.admit('i');
  if (wait === undefined) order.push(label);
  else void wait.then(() => order.push(label));
}

const settle = () => new Promise((r) => setImmediate(r));

void describe('rate limiter', () => {
  void it('two models sharing a global resource of count 1 never hold it at once', async () => {
    const l = limiter();
    const a = model(l, 'a', { R: 1 });
    const b = model(l, 'b', { R: 1 });
    assert.equal(a.admit('i'), undefined, 'a free resource is taken at once, without a promise');
    let bRan = false;
    const wait = b.admit('i');
    assert.ok(wait !== undefined);
    void wait.then(() => (bRan = true));
    await settle();
    assert.equal(bRan, false, 'b waits while a holds R');
    assert.deepEqual([...l.held()], [['global/R', 1]]);
    a.release('i');
    await settle();
    assert.equal(bRan, true);
    b.release('i');
    assert.deepEqual([...l.held()], []);
  });

  void it('an instance asking for nothing never waits', () => {
    const l = limiter();
    const a = model(l, 'a', { R: 1 });
    const free = model(l, 'free', {});
    assert.equal(a.admit('i'), undefined);
    assert.equal(free.admit('i'), undefined);
  });

  void it('wakes waiting instances by exec_count * priority: priority 1 runs twice as often as 2', async () => {
    const l = limiter();
    const hold = model(l, 'hold', { R: 1 });
    const p1 = model(l, 'p1', { R: 1 }, 1);
    const p2 = model(l, 'p2', { R: 1 }, 2);
    const order: string[] = [];
    assert.equal(hold.admit('i'), undefined);
    admit(p1, 'p1', order);
    admit(p2, 'p2', order);
    hold.release('i');
    // Both models always have work: each run's instance asks again in the turn it releases, as a
    // scheduler dispatching its next batch does.
    for (let n = 0; n < 29; n++) {
      await settle();
      const last = order.at(-1) ?? '';
      const gate = last === 'p1' ? p1 : p2;
      gate.release('i');
      admit(gate, last, order);
    }
    await settle();
    assert.equal(order.length, 30);
    // Ties go to the first staged (p1), then the lower exec_count * priority.
    assert.equal(order[0], 'p1');
    assert.equal(order.filter((m) => m === 'p1').length, 20, order.join(' '));
    assert.equal(order.filter((m) => m === 'p2').length, 10, order.join(' '));
  });

  void it('a released instance with no more work leaves the resource to the one waiting', async () => {
    const l = limiter();
    const p1 = model(l, 'p1', { R: 1 }, 1);
    const p2 = model(l, 'p2', { R: 1 }, 5);
    const order: string[] = [];
    admit(p1, 'p1', order);
    admit(p2, 'p2', order);
    p1.release('i');
    await settle();
    assert.deepEqual(order, ['p1', 'p2']);
  });

  void it('only the head of the queue takes resources: a smaller demand behind it waits', async () => {
    const l = limiter('R:2');
    const small = model(l, 'small', { R: 1 });
    const big = model(l, 'big', { R: 2 });
    const other = model(l, 'other', { R: 1 });
    const order: string[] = [];
    admit(small, 'small', order);
    admit(big, 'big', order); // staged first: needs 2, 1 is free
    admit(other, 'other', order); // would fit, but big is ahead of it
    await settle();
    assert.deepEqual(order, ['small']);
    small.release('i');
    await settle();
    assert.deepEqual(order, ['small', 'big']);
    big.release('i');
    await settle();
    assert.deepEqual(order, ['small', 'big', 'other']);
  });

  void it('per-device resources are counted per device', async () => {
    const l = limiter();
    const spec = (device: number) => ({
      name: `i${device}`,
      device,
      resources: [{ name: 'D', global: false, count: 1 }],
      priority: 0,
    });
    const g = l.register('m', 1, [spec(0), spec(0), spec(1)]);
    // Instance names repeat per device here only for the test; the pool's are unique.
    assert.equal(g.admit('i0'), undefined);
    assert.equal(g.admit('i1'), undefined, 'device 1 has its own copy of D');
    assert.deepEqual(l.describe(), { 'device 0': { D: 1 }, 'device 1': { D: 1 } });
  });

  void it('a failed registration registers nothing; close takes the demands out of the table', () => {
    const l = limiter('R:2');
    const a = model(l, 'a', { R: 2 });
    assert.throws(() => model(l, 'b', { R: 3 }), /limited to 2 .* minimum required count is 3/);
    assert.deepEqual(l.describe(), { GLOBAL: { R: 2 } });
    a.close();
    assert.deepEqual(l.describe(), {});
    const dflt = limiter();
    const big = model(dflt, 'big', { R: 4 });
    model(dflt, 'small', { R: 1 });
    assert.deepEqual(dflt.describe(), { GLOBAL: { R: 4 } });
    big.close();
    assert.deepEqual(dflt.describe(), { GLOBAL: { R: 1 } }, 'the count follows what is loaded');
  });
});
