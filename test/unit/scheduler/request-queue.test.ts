// The priority queue under Triton's queue policy: levels, default level, max_queue_size, timeout
// REJECT and DELAY at their deadline (on an injected clock), override that may only lower, and
// withdrawal.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  effectiveTimeoutUs,
  levelOf,
  priorityPlan,
  queuePolicy,
} from '../../../src/scheduler/queue-policy.js';
import type { QueueEntry } from '../../../src/scheduler/request-queue.js';
import { dynamicBatching as db, queuePolicy as policy, queueSetup as setup } from './fixtures.js';

void describe('queue policy', () => {
  void it('maps priority 0 and out-of-range priorities to the default level', () => {
    const plan = priorityPlan(db({ priority_levels: 3, default_priority_level: 2 }));
    assert.deepEqual(
      [0, 1, 2, 3, 4, 1e15].map((p) => levelOf(plan, p)),
      [2, 1, 2, 3, 2, 2],
    );
    const flat = priorityPlan(db());
    assert.deepEqual(
      [0, 1, 7].map((p) => levelOf(flat, p)),
      [1, 1, 1],
    );
  });

  void it('lets a request timeout lower the default only, and only when allowed', () => {
    const allowed = queuePolicy(
      policy({ default_timeout_microseconds: 1000, allow_timeout_override: true }),
    );
    assert.equal(effectiveTimeoutUs(allowed, 0), 1000);
    assert.equal(effectiveTimeoutUs(allowed, 10), 10);
    assert.equal(effectiveTimeoutUs(allowed, 5000), 1000);
    const fixed = queuePolicy(policy({ default_timeout_microseconds: 1000 }));
    assert.equal(effectiveTimeoutUs(fixed, 10), 1000);
    // No default timeout: nothing to lower (as Triton's PolicyQueue::Enqueue).
    const none = queuePolicy(policy({ allow_timeout_override: true }));
    assert.equal(effectiveTimeoutUs(none, 10), 0);
  });
});

void describe('RequestQueue', () => {
  void it('serves level 1 first, arrival order within a level', () => {
    const { queue, names } = setup(db({ priority_levels: 3, default_priority_level: 3 }));
    queue.push('low-a', 0, 0);
    queue.push('high-a', 1, 0);
    queue.push('mid', 2, 0);
    queue.push('high-b', 1, 0);
    queue.push('low-b', 9, 0);
    assert.deepEqual(names(), ['high-a', 'high-b', 'mid', 'low-a', 'low-b']);
    assert.equal(queue.size, 5);
  });

  void it('rejects past max_queue_size at once, per level', () => {
    const { queue } = setup(
      db({
        priority_levels: 2,
        default_priority_level: 2,
        priority_queue_policy: { '1': policy({ max_queue_size: 1 }) },
        default_queue_policy: policy({ max_queue_size: 2 }),
      }),
    );
    queue.push('a', 1, 0);
    assert.throws(
      () => queue.push('b', 1, 0),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'QUEUE_FULL' &&
        e.status === 503 &&
        e.message.startsWith('Exceeds maximum queue size'),
    );
    queue.push('c', 2, 0);
    queue.push('d', 2, 0);
    assert.throws(() => queue.push('e', 0, 0), { name: 'InferenceServerError' });
    assert.equal(queue.size, 3);
  });

  void it('rejects a timed-out request at its deadline (REJECT), not before', () => {
    const { clock, queue, timedOut, names } = setup(
      db({ default_queue_policy: policy({ default_timeout_microseconds: 100_000 }) }),
    );
    queue.push('a', 0, 0);
    clock.advanceUs(50_000);
    queue.push('b', 0, 0);
    clock.advanceUs(49_999);
    assert.deepEqual(timedOut, []);
    clock.advanceUs(1);
    assert.deepEqual(timedOut, ['a']);
    assert.deepEqual(names(), ['b']);
    clock.advanceUs(50_000);
    assert.deepEqual(timedOut, ['a', 'b']);
    assert.equal(queue.size, 0);
  });

  void it('moves a timed-out request behind the on-time ones (DELAY)', () => {
    const { clock, queue, delayed, timedOut, names } = setup(
      db({
        default_queue_policy: policy({
          timeout_action: 'DELAY',
          default_timeout_microseconds: 1000,
          allow_timeout_override: true,
        }),
      }),
    );
    queue.push('a', 0, 0);
    queue.push('b', 0, 10);
    queue.push('c', 0, 0);
    clock.advanceUs(10);
    assert.deepEqual(delayed, ['b']);
    assert.deepEqual(names(), ['a', 'c', 'b']);
    assert.equal(queue.ordered()[2]?.delayed, true);
    clock.advanceUs(1000);
    assert.deepEqual(names(), ['b', 'a', 'c']);
    assert.deepEqual(timedOut, []);
    assert.equal(queue.size, 3);
  });

  void it('withdraws entries, cancelling their deadline timers', () => {
    const { clock, queue, timedOut, names } = setup(
      db({ default_queue_policy: policy({ default_timeout_microseconds: 10 }) }),
    );
    const a = queue.push('a', 0, 0);
    const b = queue.push('b', 0, 0);
    assert.equal(queue.remove(a), true);
    assert.equal(queue.remove(a), false);
    queue.take([b]);
    assert.equal(queue.remove(b), false);
    assert.equal(clock.pendingTimers, 0);
    clock.advanceUs(100);
    assert.deepEqual(timedOut, []);
    assert.deepEqual(names(), []);
  });

  void it('handles priority_levels as large as 2^64-1 without allocating levels', () => {
    const { queue, names } = setup(
      db({ priority_levels: 18446744073709551615, default_priority_level: 4294967296 }),
    );
    const entries: QueueEntry<string>[] = [];
    entries.push(queue.push('default', 0, 0));
    entries.push(queue.push('top', 1, 0));
    entries.push(queue.push('far', 2 ** 52, 0));
    assert.deepEqual(names(), ['top', 'default', 'far']);
    queue.take(entries);
    assert.equal(queue.size, 0);
  });
});
