// A remote cache's failures: every one counted, at most one WARN line per operation per interval,
// the next line saying how many failed since the last (on an injected clock).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CacheFailures, type CacheOp } from '../../../src/cache/cache-failures.js';

void describe('CacheFailures', () => {
  void it('counts each failure and rate-limits the WARN lines per operation', () => {
    let now = 0;
    const counted: CacheOp[] = [];
    const lines: { fields: Record<string, unknown>; msg: string }[] = [];
    const failures = new CacheFailures({
      count: (op) => counted.push(op),
      logger: {
        warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }),
      } as never,
      intervalMs: 1000,
      now: () => now,
    });
    failures.failed('lookup', new Error('Connection is closed.'));
    failures.failed('insert', new Error('Command timed out'));
    for (let i = 0; i < 5; i++) {
      now += 100;
      failures.failed('lookup', new Error('Connection is closed.'));
    }
    assert.equal(lines.length, 2, 'one line per operation');
    now = 1000;
    failures.failed('lookup', new Error('Connection is closed.'));
    assert.equal(counted.filter((o) => o === 'lookup').length, 7);
    assert.equal(counted.filter((o) => o === 'insert').length, 1);
    assert.equal(lines.length, 3);
    assert.deepEqual(lines[2]?.fields, { op: 'lookup', failures: 6 });
    assert.match(
      lines[2]?.msg ?? '',
      /^response cache lookup failed \(Connection is closed\.\); the request was served by the model \(6 lookup failures since the last such line\)$/,
    );
    assert.match(lines[1]?.msg ?? '', /^response cache insert failed \(Command timed out\)/);
  });
});
