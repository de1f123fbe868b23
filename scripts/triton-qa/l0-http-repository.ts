// Builds the model repository Triton's qa/L0_http tests expect, under the names they use, from what
// infernode can generate: ONNX identity and add/sub models from scripts/onnx, and JavaScript models
// where Triton's QA uses a custom or Python backend (simple_identity). Used by run-l0-http.sh only;
// never by CI (the tests themselves are Triton's and are not in this repository).
//   node dist/scripts/triton-qa/l0-http-repository.js <dir>

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleModel } from '../onnx/bundled-models.js';
import { writeModels, type GeneratedModel } from '../onnx/generated-model.js';
import { ELEM, encodeModel, node, tensorValue, type ElemType } from '../onnx/graph-builder.js';

type TritonType = 'TYPE_FP32' | 'TYPE_FP16' | 'TYPE_STRING' | 'TYPE_INT32';

const ELEM_OF: Record<TritonType, ElemType> = {
  TYPE_FP32: ELEM.FLOAT,
  TYPE_FP16: ELEM.FLOAT16,
  TYPE_STRING: ELEM.STRING,
  TYPE_INT32: ELEM.INT32,
};

/**
 * Triton's `onnx_zero_<n>_<type>`: n identity pairs INPUTi -> OUTPUTi, batch dimension first, every
 * dimension dynamic in the graph. `inputDims` narrows the inputs in the config only, as test.sh's
 * sed does for onnx_zero_1_object_1_element.
 */
function zeroModel(
  name: string,
  type: TritonType,
  count: number,
  dims: number[],
  extra = '',
  inputDims = dims,
) {
  const rank = ['batch', ...dims.map((_, i) => `d${i}`)];
  const ios = Array.from({ length: count }, (_, i) => i);
  const bytes = encodeModel({
    name,
    inputs: ios.map((i) => tensorValue(`INPUT${i}`, ELEM_OF[type], rank)),
    outputs: ios.map((i) => tensorValue(`OUTPUT${i}`, ELEM_OF[type], rank)),
    nodes: ios.map((i) => node('Identity', [`INPUT${i}`], [`OUTPUT${i}`], `identity${i}`)),
  });
  const tensor = (kind: string, i: number): string =>
    `  { name: "${kind}${i}" data_type: ${type} dims: [ ${(kind === 'INPUT' ? inputDims : dims).join(', ')} ] }`;
  const config =
    `name: "${name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\n` +
    `input [\n${ios.map((i) => tensor('INPUT', i)).join(',\n')}\n]\n` +
    `output [\n${ios.map((i) => tensor('OUTPUT', i)).join(',\n')}\n]\n${extra}`;
  return { name, version: 1, bytes, config } satisfies GeneratedModel;
}

const SIMPLE_CONFIG = `name: "simple"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [
  { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
  { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
]
output [
  { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
  { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
]
`;

/** Triton's simple_identity is a Python model; this JavaScript one passes INPUT0 through. */
const IDENTITY_MODULE = `export function execute(requests) {
  return requests.map((r) => ({
    outputs: { OUTPUT0: { shape: r.inputs.INPUT0.shape, data: r.inputs.INPUT0.data } },
  }));
}
`;

function identityConfig(name: string, type: string): string {
  return (
    `name: "${name}"\nbackend: "javascript"\nmax_batch_size: 8\n` +
    `input [ { name: "INPUT0" data_type: ${type} dims: [ -1 ] } ]\n` +
    `output [ { name: "OUTPUT0" data_type: ${type} dims: [ -1 ] } ]\n`
  );
}

async function writeJavaScriptModel(dir: string, name: string, type: string): Promise<void> {
  await mkdir(path.join(dir, name, '1'), { recursive: true });
  await writeFile(path.join(dir, name, 'config.pbtxt'), identityConfig(name, type));
  await writeFile(path.join(dir, name, '1', 'model.mjs'), IDENTITY_MODULE);
}

/** Writes the repository afresh under `dir`. */
export async function writeL0HttpRepository(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const queue =
    'dynamic_batching {\n  max_queue_delay_microseconds: 1000000\n  preferred_batch_size: [ 8 ]\n' +
    '  default_queue_policy { max_queue_size: 1 }\n}\n';
  await writeModels(dir, [
    zeroModel('onnx_zero_1_float32', 'TYPE_FP32', 1, [-1]),
    zeroModel('onnx_zero_3_float32', 'TYPE_FP32', 3, [-1]),
    zeroModel('onnx_zero_1_float16', 'TYPE_FP16', 1, [-1, -1]),
    zeroModel('onnx_zero_1_object', 'TYPE_STRING', 1, [-1]),
    zeroModel('onnx_zero_1_object_1_element', 'TYPE_STRING', 1, [-1], '', [1]),
    zeroModel('onnx_zero_1_float32_queue', 'TYPE_FP32', 1, [-1], queue),
    { name: 'simple', version: 1, bytes: simpleModel(), config: SIMPLE_CONFIG },
  ]);
  await writeJavaScriptModel(dir, 'simple_identity', 'TYPE_STRING');
  await writeJavaScriptModel(dir, 'simple_identity_int64', 'TYPE_INT64');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: l0-http-repository.js <dir>');
  await writeL0HttpRepository(path.resolve(dir));
}
