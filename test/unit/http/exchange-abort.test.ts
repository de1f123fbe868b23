// The HTTP exchange's abort flag: listeners run once, in order, on the first abort only; removed or
// late listeners are not called; a throwing listener does not stop the others.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExchangeAbort } from '../../../src/http/exchange-abort.js';

void describe('ExchangeAbort', () => {
  void it('calls each listener still added once, in order, with the reason kept', () => {
    const abort = new ExchangeAbort();
    const calls: string[] = [];
    const a = (): void => void calls.push('a');
    const b = (): void => void calls.push('b');
    const c = (): void => void calls.push('c');
    abort.addEventListener('abort', a);
    abort.addEventListener('abort', b);
    abort.addEventListener('abort', c);
    abort.removeEventListener('abort', b);
    assert.equal(abort.aborted, false);
    assert.equal(abort.reason, undefined);
    abort.abort('gone');
    abort.abort('again');
    assert.deepEqual(calls, ['a', 'c']);
    assert.equal(abort.aborted, true);
    assert.equal(abort.reason, 'gone');
    abort.addEventListener('abort', a);
    assert.deepEqual(calls, ['a', 'c'], 'a listener added after the abort is not called');
  });

  void it('reports a throwing listener as uncaught and still calls the rest', async () => {
    const abort = new ExchangeAbort();
    let after = false;
    abort.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    abort.addEventListener('abort', () => {
      after = true;
    });
    const uncaught = new Promise<unknown>((resolve) => {
      const listeners = process.listeners('uncaughtException');
      process.removeAllListeners('uncaughtException');
      process.once('uncaughtException', (e) => {
        for (const l of listeners) process.on('uncaughtException', l);
        resolve(e);
      });
    });
    abort.abort(undefined);
    assert.equal(after, true);
    assert.equal(((await uncaught) as Error).message, 'listener failed');
  });
});
