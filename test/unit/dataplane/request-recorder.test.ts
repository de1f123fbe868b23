// The request recorder's bounds, on the real file system: the sampling draw, the bounded queue of
// writes waiting for the disk (a full queue drops and counts), and the file's contents.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RequestRecorder } from '../../../src/dataplane/request-recorder.js';
import type { ResponseOutput } from '../../../src/protocol/inference-request.js';
import type { ValidatedInput } from '../../../src/scheduler/validated-request.js';

const input = (values: number[]): ValidatedInput => {
  const bytes = new Uint8Array(Float32Array.from(values).buffer);
  return {
    name: 'INPUT0',
    datatype: 'FP32',
    shape: [1, values.length],
    requestShape: [1, values.length],
    byteLength: bytes.byteLength,
    write: (target) => target.set(bytes),
    bytes,
  };
};

const output: ResponseOutput = {
  name: 'OUTPUT0',
  datatype: 'INT64',
  shape: [1, 2],
  data: new Uint8Array(BigInt64Array.of(7n, -(2n ** 60n)).buffer),
  binary: false,
};

void describe('RequestRecorder', () => {
  void it('samples by the draw, bounds the queue, and writes a replayable request', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-recorder-'));
    try {
      const draws = [0.4, 0.6, 0.1, 0.2];
      const recorder = new RequestRecorder({
        dir,
        rate: 0.5,
        maxBytes: 1 << 20,
        maxPending: 1,
        random: () => draws.shift() ?? 1,
      });
      // Sampled (0.4 < 0.5); the writer takes it off the queue at once.
      recorder.sample([input([1, 2])])?.finish('m', 3, [output]);
      // Not sampled (0.6).
      assert.equal(recorder.sample([input([3, 4])]), undefined);
      // Sampled: waits in the queue while the first is written.
      recorder.sample([input([5, 6])])?.finish('m', 3, [output]);
      // Sampled, but the queue is full: dropped and counted.
      assert.equal(recorder.sample([input([7, 8])]), undefined);
      await recorder.flush();
      assert.deepEqual(recorder.stats(), {
        recorded: 2,
        droppedBudget: 0,
        droppedQueue: 1,
        failed: 0,
        recordedBytes: 2 * (8 + 16),
      });
      const files = (await readdir(path.join(dir, 'm'))).sort();
      assert.deepEqual(files, ['3-00000000.json', '3-00000001.json']);
      const rec = JSON.parse(
        await readFile(path.join(dir, 'm', files[1] as string), 'utf8'),
      ) as unknown;
      assert.deepEqual(rec, {
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: [5, 6] }],
        recorded_response: {
          model_name: 'm',
          model_version: '3',
          // A 64-bit value past 2^53 is written as a string, so no JSON reader rounds it.
          outputs: [
            {
              name: 'OUTPUT0',
              datatype: 'INT64',
              shape: [1, 2],
              data: [7, '-1152921504606846976'],
            },
          ],
        },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
