// An ORT worker writes the outputs a run names in `regionWrites` straight into the region's fd
// (a real /dev/shm file, a real worker and Identity session): the reply lists the bytes written
// and carries an empty descriptor for them, so ONNX Runtime's result never reaches the main
// thread; an output larger than its region space, or a region shrunk under the run, fails the run
// with Triton's error or SHM_TRUNCATED and leaves the file as it was.

import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { identityFixtureName } from '../../../scripts/onnx/fixture-models.js';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import type { RegionWrite } from '../../../src/shared-memory/region-write.js';
import { CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

const FILE = `/dev/shm/infernode-test-region-writes-${process.pid}`;
const N = 64;
const values = Float32Array.from({ length: N }, (_, i) => i * 0.5 - 3);
const bytes = new Uint8Array(values.buffer);

let repos: GeneratedRepos;
let pool: InstancePool;
let fd: number;

before(async () => {
  repos = await generateModels();
  const name = identityFixtureName('FP32');
  pool = await InstancePool.start({
    backend: ortWorkers(),
    model: name,
    version: 1,
    modelPath: repos.fixture(name),
    groups: [{ instance: `${name}_0`, count: 1, plan: CPU_PLAN }],
    sabTensors: false,
  });
});
after(async () => {
  await pool.close();
  await repos.remove();
  rmSync(FILE, { force: true });
});

const target = (byteSize: number, position = 16): RegionWrite => ({
  output: 'OUTPUT0',
  region: 'r',
  key: '/r',
  fd,
  position,
  byteSize,
});

const run = (regionWrites: RegionWrite[]) =>
  pool.run({
    inputs: inputBlock([{ name: 'INPUT0', datatype: 'FP32', shape: [1, N], bytes }]),
    outputs: ['OUTPUT0'],
    regionWrites,
  });

void describe('ORT worker: outputs written into a shared-memory region', () => {
  void it('writes the output at its position and answers with the bytes written, no data', async () => {
    writeFileSync(FILE, new Uint8Array(16 + N * 4 + 8).fill(0xaa));
    fd = openSync(FILE, 'r+');
    try {
      const r = await run([target(N * 4)]);
      if (!r.ok) assert.fail(`${r.error.code} ${r.error.message}`);
      assert.deepEqual(r.written, { OUTPUT0: N * 4 });
      assert.equal(r.outputs[0]?.byteLength, 0);
      assert.deepEqual(r.outputs[0]?.shape, [1, N]);
      const file = readFileSync(FILE);
      assert.deepEqual(new Uint8Array(file.subarray(16, 16 + N * 4)), bytes);
      assert.deepEqual([...file.subarray(0, 16)], new Array(16).fill(0xaa), 'before: untouched');
      assert.deepEqual([...file.subarray(16 + N * 4)], new Array(8).fill(0xaa), 'after: untouched');
    } finally {
      closeSync(fd);
    }
  });

  void it('an output larger than its region space fails the run with Triton’s message', async () => {
    writeFileSync(FILE, new Uint8Array(16 + N * 4));
    fd = openSync(FILE, 'r+');
    try {
      const r = await run([target(N * 4 - 4)]);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, 'SHM_BAD_SLICE');
      assert.match(r.error.message, /should be at least 256 bytes to hold the results/);
      assert.deepEqual(readFileSync(FILE), Buffer.alloc(16 + N * 4), 'nothing written');
    } finally {
      closeSync(fd);
    }
  });

  void it('a region shrunk before the write fails the run with SHM_TRUNCATED and is not grown', async () => {
    writeFileSync(FILE, new Uint8Array(16 + N * 4));
    fd = openSync(FILE, 'r+');
    try {
      ftruncateSync(fd, 100);
      const r = await run([target(N * 4)]);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, 'SHM_TRUNCATED');
      assert.match(r.error.message, /expected at least 272 bytes in the file/);
      assert.equal(readFileSync(FILE).byteLength, 100);
    } finally {
      closeSync(fd);
    }
  });
});
