// One chain of operations per model: order within a key, deferred work holding the next
// operation, failures answered to their caller without stopping the chain, keys independent.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationChains } from '../../../src/repository/operation-chains.js';

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

void describe('OperationChains', () => {
  void it('runs one key in order, waiting for the deferred work of the operation before', async () => {
    const chains = new OperationChains(() => assert.fail('nothing fails here'));
    const log: string[] = [];
    const draining = gate();
    const first = chains.run('m', async (defer) => {
      log.push('load');
      defer(draining.promise.then(() => void log.push('drained')));
    });
    const second = chains.run('m', () => Promise.resolve(void log.push('unload')));
    await first; // answers before its deferred work ends
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(log, ['load']);
    draining.open();
    await second;
    assert.deepEqual(log, ['load', 'drained', 'unload']);
    await chains.idle();
  });

  void it('rejects only the failing operation; the next one on the key still runs', async () => {
    const chains = new OperationChains(() => undefined);
    const failed = chains.run('m', () => Promise.reject(new Error('broken config')));
    const next = chains.run('m', () => Promise.resolve());
    await assert.rejects(failed, /broken config/);
    await next;
  });

  void it('reports failed deferred work to its listener, and keys do not wait for each other', async () => {
    const heard: string[] = [];
    const chains = new OperationChains((key, e) => heard.push(`${key}: ${(e as Error).message}`));
    const held = gate();
    void chains.run('a', async (defer) => {
      defer(held.promise.then(() => Promise.reject(new Error('retire failed'))));
    });
    let otherRan = false;
    await chains.run('b', () => Promise.resolve(void (otherRan = true)));
    assert.equal(otherRan, true, 'b does not wait for a');
    held.open();
    await chains.idle();
    assert.deepEqual(heard, ['a: retire failed']);
  });
});
