// The notify protocol's parts without a server: which environment turns notifications and the
// watchdog on, the STATUS= line, and the notifier's datagrams against a real socket (READY=1 waits
// for readiness, STATUS= only on change, STOPPING=1, watchdog pings).

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  notifySettings,
  serviceStatus,
  SystemdNotifier,
  type WatchedServer,
} from '../../../src/cli/systemd-notify.js';
import { createLogger } from '../../../src/logger.js';
import { datagramsUnavailable, NotifyReceiver, statusOf } from '../../helpers/notify-receiver.js';
import { waitFor } from '../../helpers/wait-for.js';

const PID = 4242;

void describe('notifySettings', () => {
  void it('is off without NOTIFY_SOCKET', () => {
    assert.equal(notifySettings({}, PID), undefined);
    assert.equal(notifySettings({ NOTIFY_SOCKET: '' }, PID), undefined);
  });

  void it('takes a path, and half of WATCHDOG_USEC as the ping interval', () => {
    assert.deepEqual(notifySettings({ NOTIFY_SOCKET: '/run/systemd/notify' }, PID), {
      socketPath: '/run/systemd/notify',
      watchdogIntervalMs: undefined,
    });
    const env = { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000' };
    assert.equal(notifySettings(env, PID)?.watchdogIntervalMs, 15_000);
  });

  void it('pings only for its own PID', () => {
    const env = { NOTIFY_SOCKET: '/n', WATCHDOG_USEC: '1000000' };
    assert.equal(
      notifySettings({ ...env, WATCHDOG_PID: String(PID) }, PID)?.watchdogIntervalMs,
      500,
    );
    assert.equal(notifySettings({ ...env, WATCHDOG_PID: '1' }, PID)?.watchdogIntervalMs, undefined);
  });

  void it('ignores a WATCHDOG_USEC that is not a positive integer', () => {
    for (const usec of ['0', '-5', '1.5', 'abc', '']) {
      const s = notifySettings({ NOTIFY_SOCKET: '/n', WATCHDOG_USEC: usec }, PID);
      assert.equal(s?.watchdogIntervalMs, undefined, usec);
    }
  });

  void it('refuses abstract and vsock addresses, saying so', () => {
    for (const socket of ['@abstract', 'vsock:2:1234']) {
      assert.throws(
        () => notifySettings({ NOTIFY_SOCKET: socket }, PID),
        /only a filesystem path is supported/,
      );
    }
  });
});

void describe('serviceStatus', () => {
  const ports = { http: 8000, grpc: 8001, metrics: 8002 };
  void it('counts models by state and names the listeners', () => {
    const ready = { state: 'READY' as const };
    assert.equal(
      serviceStatus(true, [ready, ready, ready, ready], ports),
      'serving 4 models (4 ready) on HTTP :8000, gRPC :8001, metrics :8002',
    );
    assert.equal(
      serviceStatus(false, [ready, { state: 'UNAVAILABLE' }, { state: 'LOADING' }], ports),
      'not ready: serving 3 models (1 ready, 1 loading, 1 unavailable) on HTTP :8000, gRPC :8001, ' +
        'metrics :8002',
    );
  });

  void it('says how many threads serve HTTP when there are several', () => {
    assert.equal(
      serviceStatus(true, [{ state: 'READY' }], { ...ports, httpThreads: 4 }),
      'serving 1 model (1 ready) on HTTP :8000 (4 threads), gRPC :8001, metrics :8002',
    );
    assert.equal(
      serviceStatus(true, [{ state: 'READY' }], { ...ports, httpThreads: 1 }),
      'serving 1 model (1 ready) on HTTP :8000, gRPC :8001, metrics :8002',
    );
  });

  void it('leaves out disabled listeners; one model is singular', () => {
    assert.equal(
      serviceStatus(true, [{ state: 'READY' }], {
        http: 8000,
        grpc: undefined,
        metrics: undefined,
      }),
      'serving 1 model (1 ready) on HTTP :8000',
    );
    assert.equal(
      serviceStatus(true, [], { http: 8000, grpc: undefined, metrics: undefined }),
      'serving 0 models (0 ready) on HTTP :8000',
    );
  });
});

void describe('SystemdNotifier', { skip: datagramsUnavailable() }, () => {
  let receiver: NotifyReceiver;
  const logger = createLogger(0, new Writable({ write: (_c, _e, done) => done() }));
  before(async () => {
    receiver = await NotifyReceiver.open();
  });
  after(async () => {
    await receiver.close();
  });

  void it('sends READY=1 once readiness holds, STATUS= on change, then STOPPING=1', async () => {
    receiver.received.length = 0;
    const notifier = new SystemdNotifier(
      { socketPath: receiver.socketPath, watchdogIntervalMs: undefined },
      logger,
    );
    let ready = false;
    let status = 'not ready: serving 1 model (0 ready, 1 loading)';
    const server: WatchedServer = { ready: () => ready, status: () => status };
    notifier.status('loading models');
    notifier.watch(server);
    const notReady = await waitFor(
      () => receiver.received.length,
      (n) => n >= 2,
    );
    assert.equal(notReady, 2);
    assert.deepEqual(
      receiver.received.map((n) => n.text),
      ['STATUS=loading models', `STATUS=${status}`],
    );

    ready = true;
    status = 'serving 1 model (1 ready)';
    const r = await receiver.first('READY=1', 5000);
    assert.equal(r?.text, 'READY=1\nSTATUS=serving 1 model (1 ready)');
    // Unchanged status: nothing more is sent.
    await new Promise((res) => setTimeout(res, 1100));
    assert.equal(receiver.received.length, 3);

    status = 'serving 1 model (0 ready, 1 unavailable)';
    const changed = await waitFor(
      () => receiver.received.map(statusOf).includes(status),
      (x) => x,
      5000,
    );
    assert.ok(changed, 'a changed status is sent');
    assert.equal(receiver.with('READY=1').length, 1, 'READY=1 only once');

    notifier.stopping('draining');
    const s = await receiver.first('STOPPING=1', 5000);
    assert.equal(s?.text, 'STOPPING=1\nSTATUS=draining');
    await notifier.close();
  });

  void it('keeps a status on one line, so it cannot add fields of its own', async () => {
    receiver.received.length = 0;
    const notifier = new SystemdNotifier(
      { socketPath: receiver.socketPath, watchdogIntervalMs: undefined },
      logger,
    );
    // An error message with a newline must not become a WATCHDOG=trigger (an abort) of its own.
    notifier.status(`start-up failed: bad\nWATCHDOG=trigger\r\n${'x'.repeat(5000)}`);
    await notifier.close();
    const [n] = await waitFor(
      () => receiver.received,
      (r) => r.length === 1,
      5000,
    );
    assert.ok(n !== undefined);
    assert.equal(n.text.split('\n').length, 1);
    assert.ok(n.text.startsWith('STATUS=start-up failed: bad WATCHDOG=trigger xxx'));
    assert.ok(n.text.length <= 'STATUS='.length + 1024);
  });

  void it('pings WATCHDOG=1 at the interval until closed', async () => {
    receiver.received.length = 0;
    const notifier = new SystemdNotifier(
      { socketPath: receiver.socketPath, watchdogIntervalMs: 50 },
      logger,
    );
    await new Promise((r) => setTimeout(r, 600));
    await notifier.close();
    // A ping sent just before close may still be in the socket: let the receiver read it first.
    await new Promise((r) => setTimeout(r, 100));
    const pings = receiver.with('WATCHDOG=1').length;
    // About 12; a busy machine fires late timers, never early ones.
    assert.ok(pings >= 4 && pings <= 14, `pings in 600 ms at 50 ms: ${pings}`);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(receiver.with('WATCHDOG=1').length, pings, 'no pings after close');
  });

  void it('keeps running when the socket is gone, and logs that once', async () => {
    const lines: string[] = [];
    const log = createLogger(
      0,
      new Writable({
        write: (chunk: Buffer, _e, done) => {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const notifier = new SystemdNotifier(
      { socketPath: `${receiver.socketPath}.missing`, watchdogIntervalMs: 20 },
      log,
    );
    await new Promise((r) => setTimeout(r, 200));
    await notifier.close();
    const failures = lines.filter((l) => l.includes('systemd notification failed'));
    assert.equal(failures.length, 1, lines.join('\n'));
    assert.match(failures[0] ?? '', /No such file or directory/);
  });
});
