// How each loss of an instance's worker is worded and counted (worker-loss.ts), without workers: what
// a client may read is scrubbed of paths and the log keeps the cause whole; only a thread death and a
// start timeout fail the load during the pool's start; a run timeout counts as a ready worker's loss.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerLosses } from '../../../src/execution/worker-loss.js';
import { scrubMessage } from '../../../src/execution/worker-errors.js';

const MODEL = '/srv/models/m/1/model.js';
const losses = new WorkerLosses('m_0', {
  group: 'm_0',
  scrub: (message) => scrubMessage(message, MODEL, 'm/1/model.js'),
});
const WHERE = 'instance m_0 of model "m" version 1';

void describe('WorkerLosses', () => {
  void it('a thread death: scrubbed for clients, whole in the log, and a load failure at start', () => {
    const cause = `uncaught Error: cannot read ${MODEL}`;
    assert.deepEqual(losses.threadDied(cause, true, false), {
      backoff: { kind: 'lost', wasReady: true },
      lastFailure: 'its worker died while idle (uncaught Error: cannot read m/1/model.js)',
      log: `instance m_0 died while idle (${cause})`,
      atStart: {
        failure:
          'its worker died before its session was ready: uncaught Error: cannot read m/1/model.js',
        log: `an instance worker of m_0 died: ${cause}`,
      },
    });
    assert.match(losses.threadDied('exit code 3', true, true).log, /died during a request/);
    assert.match(losses.threadDied('exit code 3', false, false).log, /died while starting/);
    assert.deepEqual(losses.diedReply(WHERE, cause), {
      code: 'WORKER_FAILED',
      message: `${WHERE} exited during the request (uncaught Error: cannot read m/1/model.js); it is being replaced`,
    });
  });

  void it('a handler that threw: recycled even during the start, its stack in the log only', () => {
    const e = new TypeError(`bad ${MODEL}`);
    const loss = losses.handlerThrew(e, true);
    assert.deepEqual(loss.backoff, { kind: 'lost', wasReady: true });
    assert.equal(loss.atStart, undefined);
    assert.equal(
      loss.lastFailure,
      'its worker threw during a request (TypeError: bad m/1/model.js)',
    );
    assert.equal(
      loss.log,
      `instance m_0 threw during a request, restarting its worker: ${e.stack}`,
    );
    assert.equal(
      losses.threwReply(WHERE, e).message,
      `${WHERE} failed during the request (TypeError: bad m/1/model.js); its worker is being restarted`,
    );
  });

  void it('a run timeout counts as the loss of a ready worker', () => {
    const loss = losses.runTimedOut('execute() did not settle within 50 ms');
    assert.deepEqual(loss, {
      backoff: { kind: 'lost', wasReady: true },
      lastFailure: 'its worker was terminated: execute() did not settle within 50 ms',
      log: 'instance m_0: execute() did not settle within 50 ms; terminating its worker',
    });
    assert.deepEqual(losses.timedOutReply(WHERE, 50), {
      code: 'MODEL_EXECUTE_TIMEOUT',
      message: `${WHERE}: execute() did not settle within 50 ms (parameter execute_timeout_ms); its worker is being replaced`,
    });
  });

  void it('a start timeout and a failed session count as failed starts', () => {
    const timedOut = losses.startTimedOut(200);
    assert.deepEqual(timedOut.backoff, { kind: 'failed-start' });
    assert.match(
      timedOut.lastFailure,
      /did not finish within 200 ms \(parameter initialize_timeout_ms\)/,
    );
    assert.equal(timedOut.log, `the replacement for instance m_0: ${timedOut.lastFailure}`);
    assert.deepEqual(timedOut.atStart, {
      failure: timedOut.lastFailure,
      log: `instance m_0: ${timedOut.lastFailure}`,
    });
    assert.deepEqual(losses.sessionFailed('no such input'), {
      backoff: { kind: 'failed-start' },
      lastFailure: 'no such input',
      log: 'the replacement for instance m_0 failed to load: no such input',
    });
  });
});
