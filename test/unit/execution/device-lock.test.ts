// The per-device lock of serialized GPU providers (WebGPU), with real worker threads: sections held
// under it never overlap, the same sections without it do (so the check can see an overlap), a
// lock whose holder died is freed when the main thread hears of the death, and misuse is refused.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import {
  DeviceLock,
  deviceLockBuffer,
  lockHolder,
  releaseLocksHeldBy,
} from '../../../src/execution/onnxruntime/device-lock.js';
import {
  overlappingSections,
  type RecordedSection,
} from '../../../src/execution/onnxruntime/test-gpu-target.js';
import { InferenceServerError } from '../../../src/errors.js';

const WORKER = new URL('./fixtures/device-lock-worker.js', import.meta.url);

async function sections(buffer: SharedArrayBuffer, locked: boolean): Promise<RecordedSection[]> {
  const replies = await Promise.all(
    [1, 2, 3, 4].map(
      (k) =>
        new Promise<Array<[string, string]>>((resolve, reject) => {
          const w = new Worker(WORKER, { workerData: { buffer, rounds: 15, locked } });
          w.once('message', resolve);
          w.once('error', reject);
          return k;
        }),
    ),
  );
  return replies.flatMap((r, k) =>
    r.map(([s, e]) => ({
      threadId: k + 1,
      device: 0,
      startNs: BigInt(s),
      endNs: BigInt(e),
      what: 'run',
    })),
  );
}

void describe('device lock', () => {
  void it('four threads holding it never overlap; without it they do', async () => {
    const buffer = deviceLockBuffer(100);
    const locked = await sections(buffer, true);
    assert.equal(locked.length, 60);
    assert.deepEqual(overlappingSections(locked), []);
    assert.equal(lockHolder(buffer), undefined);
    const free = await sections(new SharedArrayBuffer(4), false);
    assert.ok(overlappingSections(free).length > 0, 'unlocked sections should overlap');
  });

  void it('one buffer per device, the same on every call', () => {
    assert.equal(deviceLockBuffer(101), deviceLockBuffer(101));
    assert.notEqual(deviceLockBuffer(101), deviceLockBuffer(102));
  });

  void it('a holder that died is released by the main thread, and the lock works again', async () => {
    const buffer = deviceLockBuffer(103);
    const w = new Worker(WORKER, {
      workerData: { buffer, rounds: 0, locked: true, dieHolding: true },
    });
    const tid = w.threadId;
    const code = await new Promise<number>((resolve) => w.once('exit', resolve));
    assert.equal(code, 3);
    assert.equal(lockHolder(buffer), tid);
    releaseLocksHeldBy(tid + 1000); // another thread's death frees nothing
    assert.equal(lockHolder(buffer), tid);
    releaseLocksHeldBy(tid);
    assert.equal(lockHolder(buffer), undefined);
    assert.equal((await sections(buffer, true)).length, 60);
  });

  void it('refuses the main thread, a second acquire, and a release by a non-holder', () => {
    const buffer = new SharedArrayBuffer(4);
    const internal = (e: unknown) => e instanceof InferenceServerError && e.code === 'INTERNAL';
    assert.throws(() => new DeviceLock(buffer, 0), internal);
    const a = new DeviceLock(buffer, 7);
    a.acquire();
    assert.throws(() => a.acquire(), internal);
    assert.throws(() => new DeviceLock(buffer, 8).release(), internal);
    a.release();
    assert.equal(lockHolder(buffer), undefined);
  });
});
