// Unit tests for the hard bound on a stop: it ends the process by the signal it was armed with once
// the time passes, never before, never after cancel(), and a bound too long for a timer is none.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { armExitDeadline } from '../../../src/cli/exit-deadline.js';
import { createLogger } from '../../../src/logger.js';

function capture(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger(0, sink), lines };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

void test('ends by the armed signal once the time has passed, logging the phase', async () => {
  const { logger, lines } = capture();
  const ended: NodeJS.Signals[] = [];
  armExitDeadline(
    'SIGINT',
    30,
    logger,
    () => 'during a test',
    (s) => ended.push(s),
  );
  await sleep(5);
  assert.deepEqual(ended, [], 'not before the time');
  await sleep(80);
  assert.deepEqual(ended, ['SIGINT']);
  assert.ok(lines.some((l) => l.includes('--exit-timeout-secs ran out during a test')));
});

void test('cancel() keeps the process', async () => {
  const { logger } = capture();
  const ended: NodeJS.Signals[] = [];
  armExitDeadline(
    'SIGTERM',
    20,
    logger,
    () => '',
    (s) => ended.push(s),
  ).cancel();
  await sleep(60);
  assert.deepEqual(ended, []);
});

void test('a bound past what a timer holds is no bound (node would fire it at once)', async () => {
  const { logger } = capture();
  const ended: NodeJS.Signals[] = [];
  armExitDeadline(
    'SIGTERM',
    2 ** 31,
    logger,
    () => '',
    (s) => ended.push(s),
  );
  await sleep(20);
  assert.deepEqual(ended, []);
});
