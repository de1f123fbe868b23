// Generates the bundled models and the fixture models into a fresh temporary directory (with the
// project's own generator), and small helpers to build tensor blocks and read results.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import '../../helpers/ort-telemetry-off.js';
import { generateBundled, generateFixtures } from '../../../scripts/generate-models.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';
import { TensorBlock } from '../../../src/memory/tensor-block.js';
import type { TensorDescriptor } from '../../../src/tensor/tensor.js';

export interface GeneratedRepos {
  /** `<dir>/<model>/1/model.onnx` for a bundled model. */
  bundled(model: string): string;
  /** Same for a fixture model (identity_*, slow_fp32, bad_truncated). */
  fixture(model: string): string;
  /** The temporary root, to check that it never appears in client-facing messages. */
  readonly root: string;
  remove(): Promise<void>;
}

export async function generateModels(): Promise<GeneratedRepos> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'infernode-exec-'));
  await generateBundled(path.join(root, 'bundled'));
  await generateFixtures(path.join(root, 'fixtures'));
  return {
    root,
    bundled: (m) => path.join(root, 'bundled', m, '1', 'model.onnx'),
    fixture: (m) => path.join(root, 'fixtures', m, '1', 'model.onnx'),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

export { CPU_PLAN } from '../../helpers/cpu-session-plan.js';

/** One input tensor: its raw little-endian bytes (BYTES: length-prefixed) and shape. */
export interface InputSpec {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

/** Copies the inputs into one shared-memory block, as the data plane does for a request. */
export function inputBlock(inputs: readonly InputSpec[]): readonly TensorDescriptor[] {
  const block = TensorBlock.allocate(
    inputs.map((i) => ({
      name: i.name,
      datatype: i.datatype,
      shape: i.shape,
      byteLength: i.bytes.byteLength,
    })),
  );
  inputs.forEach((i, k) => block.write(k, i.bytes));
  return block.descriptors;
}

/** The raw bytes of a TypedArray (no copy). */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
