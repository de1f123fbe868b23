// Every datatype ORT can hold goes through a real worker and an Identity model bit-for-bit: FP16 as
// 'float16' over Uint16Array, BOOL over Uint8Array, INT64/UINT64 over BigInt arrays, BYTES as
// length-prefixed UTF-8 strings.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDENTITY_DATATYPES, identityFixtureName } from '../../../scripts/onnx/fixture-models.js';
import { datatypeInfo } from '../../../src/tensor/datatypes.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';
import {
  encodedStringsByteLength,
  encodeStringElements,
} from '../../../src/execution/onnxruntime/string-tensor.js';
import { InstancePool } from '../../../src/execution/instance-pool.js';
import { ortWorkers } from '../../../src/execution/onnxruntime/ort-workers.js';
import { byteView } from '../../../src/memory/views.js';
import { CPU_PLAN, generateModels, inputBlock } from './generated-models.js';
import type { GeneratedRepos } from './generated-models.js';

let repos: GeneratedRepos;
before(async () => {
  repos = await generateModels();
});
after(async () => {
  await repos.remove();
});

const ROWS = 2;
const COLS = 3;
const STRINGS = ['', 'a', 'héllo', '漢字', 'emoji 🎉', 'x'.repeat(300)];

/** Raw bytes for a [ROWS, COLS] tensor whose values exercise the type (signs, high bits, halves). */
function sampleBytes(d: Datatype): Uint8Array {
  if (d === 'BYTES') {
    const out = new Uint8Array(encodedStringsByteLength(STRINGS));
    encodeStringElements(STRINGS, out);
    return out;
  }
  const n = ROWS * COLS;
  const size = datatypeInfo(d).byteSize;
  const bytes = new Uint8Array(n * size);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 37 + 11) & 0xff;
  if (d === 'BOOL') for (let i = 0; i < n; i++) bytes[i] = i % 2;
  if (d === 'FP16') {
    // Finite halves only (no NaN payloads, which an implementation may canonicalize).
    const halves = [0x3c00, 0xc000, 0x0001, 0x7bff, 0x8000, 0x3555];
    new Uint16Array(bytes.buffer).set(halves);
  }
  if (d === 'FP32' || d === 'FP64') {
    const Ctor = d === 'FP32' ? Float32Array : Float64Array;
    new Ctor(bytes.buffer).set([1.5, -0, 3.25e-7, -1e30, Math.PI, 42]);
  }
  return bytes;
}

void describe('datatypes through a worker (Identity models)', () => {
  for (const d of IDENTITY_DATATYPES) {
    void it(`${d} round-trips bit-for-bit`, async () => {
      const name = identityFixtureName(d);
      const pool = await InstancePool.start({
        backend: ortWorkers(),
        model: name,
        version: 1,
        modelPath: repos.fixture(name),
        groups: [{ instance: `${name}_0`, count: 1, plan: CPU_PLAN }],
        sabTensors: false,
      });
      try {
        const shape = [ROWS, COLS];
        const bytes = sampleBytes(d);
        const r = await pool.run({
          inputs: inputBlock([{ name: 'INPUT0', datatype: d, shape, bytes }]),
          outputs: ['OUTPUT0'],
        });
        if (!r.ok) assert.fail(`${d}: ${r.error.code} ${r.error.message}`);
        const [out] = r.outputs;
        assert.equal(out?.datatype, d);
        assert.deepEqual(out?.shape, shape);
        assert.deepEqual(byteView(out ?? assert.fail('no output')), bytes);
      } finally {
        await pool.close();
      }
    });
  }
});
