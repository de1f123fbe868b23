// Fair dequeuing across tenants in the request queue: untagged and single-tenant queues keep
// arrival order; several tenants in one level interleave by weight and by rows; the level's virtual
// time keeps a late tenant from jumping the whole queue; priority levels, timeouts (REJECT and
// DELAY), max_queue_size and withdrawal work as without tenants.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueueEntry } from '../../../src/scheduler/request-queue.js';
import type { TenantTag } from '../../../src/scheduler/tenant-tag.js';
import {
  dynamicBatching as db,
  gaps,
  queuePolicy as policy,
  queueSetup as setup,
} from './fixtures.js';

const tenant = (name: string, weight = 1): TenantTag => ({ name, weight });
const A = tenant('a');
const B = tenant('b');

void describe('RequestQueue: fairness across tenants', () => {
  void it('keeps arrival order exactly for untagged requests and for one tenant', () => {
    const untagged = setup();
    untagged.flood('r', 50);
    assert.deepEqual(
      untagged.names(),
      Array.from({ length: 50 }, (_, i) => `r${i}`),
    );
    const one = setup();
    one.flood('r', 20, A);
    one.serve(5);
    one.flood('s', 20, tenant('a', 7));
    assert.deepEqual(one.names(), [
      ...Array.from({ length: 15 }, (_, i) => `r${i + 5}`),
      ...Array.from({ length: 20 }, (_, i) => `s${i}`),
    ]);
  });

  void it('interleaves a tenant arriving behind a flood instead of serving it last', () => {
    const { flood, serve } = setup();
    flood('a', 100, A);
    assert.deepEqual(serve(1), ['a0']); // one was already running when b came
    flood('b', 10, B);
    const order = serve(110);
    assert.equal(order.length, 109);
    // Each of b's requests waits behind at most one of a's.
    const g = gaps(order, 'a', 'b');
    assert.equal(g.length, 10);
    assert.ok(
      g.every((n) => n <= 1),
      `a's requests before each of b's: ${g.join(',')}`,
    );
    // Each tenant's own requests stay in their order.
    assert.deepEqual(
      order.filter((n) => n.startsWith('b')),
      Array.from({ length: 10 }, (_, i) => `b${i}`),
    );
    assert.deepEqual(
      order.filter((n) => n.startsWith('a')),
      Array.from({ length: 99 }, (_, i) => `a${i + 1}`),
    );
  });

  void it('treats untagged requests as one more tenant', () => {
    const { flood, serve } = setup();
    flood('a', 40, A);
    flood('n', 10);
    const g = gaps(serve(50), 'a', 'n');
    assert.ok(
      g.every((n) => n <= 1),
      g.join(','),
    );
  });

  void it('serves tenants with weights 2:1 about 2:1', () => {
    const { flood, serve } = setup();
    flood('a', 100, tenant('a', 2));
    flood('b', 100, tenant('b', 1));
    const first = serve(60);
    const a = first.filter((n) => n.startsWith('a')).length;
    assert.ok(a >= 39 && a <= 41, `a got ${a} of the first 60`);
    const g = gaps(first, 'a', 'b');
    assert.ok(
      g.every((n) => n <= 2),
      g.join(','),
    );
  });

  void it('charges a request its rows: one 4-row request weighs as four 1-row requests', () => {
    const { flood, serve } = setup();
    flood('a', 10, A, 0, 4);
    flood('b', 40, B, 0, 1);
    const g = gaps(serve(20), 'b', 'a');
    // Between two of a's 4-row requests, four of b's 1-row requests.
    assert.deepEqual(g.slice(1, 4), [4, 4, 4]);
  });

  void it("does not bank credit: a tenant arriving late shares from the level's virtual time", () => {
    const { flood, serve } = setup();
    flood('a', 100, A);
    flood('c', 1, tenant('c')); // turns the level fair
    serve(61);
    flood('b', 10, B);
    // b interleaves with a from now on; it does not take the 60 turns it was absent for.
    const g = gaps(serve(20), 'a', 'b');
    assert.ok(g.length >= 9 && g.every((n) => n <= 1), g.join(','));
  });

  void it('turns fair only while a level holds a second tenant: empty, it starts in order again', () => {
    const { flood, serve, names } = setup();
    flood('a', 3, A);
    flood('b', 3, B);
    assert.deepEqual(names(), ['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    serve(6);
    flood('b', 2, B);
    flood('x', 2, B);
    assert.deepEqual(names(), ['b0', 'b1', 'x0', 'x1']);
  });

  void it('keeps priority levels strict: fairness applies within a level', () => {
    const { flood, names } = setup(db({ priority_levels: 2, default_priority_level: 2 }));
    flood('a', 4, A, 2);
    flood('b', 2, B, 2);
    flood('h', 2, A, 1);
    assert.deepEqual(names(), ['h0', 'h1', 'a0', 'b0', 'a1', 'b1', 'a2', 'a3']);
  });

  void it('fires REJECT timeouts and counts max_queue_size over all tenants', () => {
    const { clock, queue, timedOut, names } = setup(
      db({
        default_queue_policy: policy({
          default_timeout_microseconds: 1000,
          allow_timeout_override: true,
          max_queue_size: 4,
        }),
      }),
    );
    queue.push('a0', 0, 0, A);
    queue.push('a1', 0, 10, A);
    queue.push('b0', 0, 0, B);
    queue.push('b1', 0, 0, B);
    assert.throws(() => queue.push('c0', 0, 0, tenant('c')), { name: 'InferenceServerError' });
    assert.deepEqual(names(), ['a0', 'b0', 'a1', 'b1']);
    clock.advanceUs(10);
    assert.deepEqual(timedOut, ['a1']);
    assert.deepEqual(names(), ['a0', 'b0', 'b1']);
    clock.advanceUs(1000);
    assert.deepEqual(timedOut, ['a1', 'a0', 'b0', 'b1']);
    assert.equal(queue.size, 0);
  });

  void it('moves a DELAY-expired request behind the level, out of the fair order', () => {
    const { clock, queue, names } = setup(
      db({
        default_queue_policy: policy({
          timeout_action: 'DELAY',
          default_timeout_microseconds: 1000,
          allow_timeout_override: true,
        }),
      }),
    );
    queue.push('a0', 0, 10, A);
    queue.push('a1', 0, 0, A);
    queue.push('b0', 0, 0, B);
    queue.push('b1', 0, 0, B);
    assert.deepEqual(names(), ['a0', 'b0', 'a1', 'b1']);
    clock.advanceUs(10);
    assert.deepEqual(names(), ['b0', 'a1', 'b1', 'a0']);
    queue.push('b2', 0, 0, B);
    assert.deepEqual(names(), ['b0', 'a1', 'b1', 'b2', 'a0']);
  });

  void it('withdraws and takes entries from a fair level, several at once', () => {
    const { queue, names, flood } = setup();
    const a = flood('a', 3, A);
    const b = flood('b', 3, B);
    assert.equal(queue.remove(b[0] as QueueEntry<string>), true);
    queue.take([a[0] as QueueEntry<string>, b[1] as QueueEntry<string>]);
    assert.deepEqual(names(), ['a1', 'a2', 'b2']);
    assert.equal(queue.size, 3);
  });
});
