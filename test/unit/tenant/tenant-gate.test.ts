import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { parseQuotaJson } from '../../../src/tenant/quota-file.js';
import { TenantGate } from '../../../src/tenant/tenant-gate.js';

const S = 1e9;

function refusedWith(f: () => unknown, code: string): InferenceServerError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof InferenceServerError);
    assert.equal(e.code, code);
    return e;
  }
  assert.fail(`expected ${code}`);
}

void describe('TenantGate', () => {
  void it('rate, in flight and queue share per tenant and model, on an injected clock', () => {
    let now = 0;
    const gate = new TenantGate(
      parseQuotaJson(
        {
          tenants: {
            a: { rps: 1, burst: 2, in_flight: 3, share: 2, models: { m: { rps: 0.5, burst: 1 } } },
            q: { queue: 0.5 },
          },
        },
        'q',
      ),
      undefined,
      () => now,
    );
    const first = gate.admit('a', 'm', 0);
    assert.deepEqual(first.tag, { name: 'a', weight: 2 });
    const e = refusedWith(() => gate.admit('a', 'm', 0), 'TENANT_RATE_LIMITED');
    assert.equal(e.retryAfterS, 2);
    // The model's refusal gave the tenant-wide token back: another model still has one.
    gate.admit('a', 'other', 0);
    refusedWith(() => gate.admit('a', 'other', 0), 'TENANT_RATE_LIMITED');
    now = 10 * S;
    gate.admit('a', 'other', 0);
    assert.equal(gate.inFlight('a'), 3);
    refusedWith(() => gate.admit('a', 'other', 0), 'TENANT_IN_FLIGHT');
    first.release();
    first.release(); // idempotent
    assert.equal(gate.inFlight('a'), 2);
    // Queue share: 4 × 0.5 = 2 places of model m.
    const held = [gate.admit('q', 'm', 4), gate.admit('q', 'm', 4)];
    refusedWith(() => gate.admit('q', 'm', 4), 'TENANT_QUEUE_SHARE');
    gate.admit('q', 'unbounded', 0);
    held[0]?.release();
    gate.admit('q', 'm', 4);
  });

  void it("in flight and queue-share refusals' retry delay: the mean request time less the oldest's age", () => {
    let now = 0;
    const gate = new TenantGate(
      parseQuotaJson({ tenants: { b: { in_flight: 1 } } }, 'q'),
      undefined,
      () => now,
    );
    // No request of the model answered yet: 1 s, as before.
    let held = gate.admit('b', 'm', 0);
    let e = refusedWith(() => gate.admit('b', 'm', 0), 'TENANT_IN_FLIGHT');
    assert.deepEqual([e.retryAfterS, e.retryAfterMs], [1, 1000]);
    now = 2 * S;
    held.release(); // m's mean: 2 s
    held = gate.admit('b', 'm', 0);
    now = 2.5 * S; // the one in flight is 0.5 s old: about 1.5 s left
    e = refusedWith(() => gate.admit('b', 'm', 0), 'TENANT_IN_FLIGHT');
    assert.deepEqual([e.retryAfterS, e.retryAfterMs], [2, 1500]);
    assert.match(e.message, /retry after 2 s$/);
    now = 5 * S; // overdue: a tenth of the mean
    e = refusedWith(() => gate.admit('b', 'm', 0), 'TENANT_IN_FLIGHT');
    assert.deepEqual([e.retryAfterS, e.retryAfterMs], [1, 200]);
    now = 500 * S;
    held.release(); // mean 2 + 0.2 × (498 - 2) = 101.2 s: clamped to a minute
    held = gate.admit('b', 'm', 0);
    e = refusedWith(() => gate.admit('b', 'm', 0), 'TENANT_IN_FLIGHT');
    assert.deepEqual([e.retryAfterS, e.retryAfterMs], [60, 60_000]);
  });

  void it('a reload swaps limits and keeps the counts in flight', () => {
    const gate = new TenantGate(
      parseQuotaJson({ default: { in_flight: 1 } }, 'q'),
      undefined,
      () => 0,
    );
    const held = gate.admit('x', 'm', 0);
    refusedWith(() => gate.admit('x', 'm', 0), 'TENANT_IN_FLIGHT');
    gate.replace(parseQuotaJson({ default: { in_flight: 2 } }, 'q'));
    const second = gate.admit('x', 'm', 0);
    refusedWith(() => gate.admit('x', 'm', 0), 'TENANT_IN_FLIGHT');
    held.release();
    second.release();
    assert.equal(gate.inFlight('x'), 0);
  });

  void it('unknown tenants: the default, or refused', () => {
    const refuse = new TenantGate(parseQuotaJson({ unknown: 'refuse', tenants: { k: {} } }, 'q'));
    refuse.admit('k', 'm', 0).release();
    refusedWith(() => refuse.admit('', 'm', 0), 'TENANT_UNKNOWN');
  });
});
