// Builds the model repositories Triton's qa/L0_shared_memory test and the client's shm examples
// expect, under the names they use: `models/` (simple, onnx_int32_int32_int32 and the examples'
// simple_string) and `python_models/` (test.sh's execute_delayed_model as `simple`: add/sub after
// 15 s). Where Triton's QA uses a Python model, this writes a JavaScript one (as l0-http-repository
// does for simple_identity). Used by run-l0-shm.sh only; never by CI.
//   node dist/scripts/triton-qa/l0-shm-repository.js <dir>

import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleModel } from '../onnx/bundled-models.js';
import { writeModels } from '../onnx/generated-model.js';

/** Triton's `simple` / qa `<backend>_int32_int32_int32`: OUTPUT0 = sum, OUTPUT1 = difference. */
function addSubConfig(name: string, head: string, type = 'TYPE_INT32'): string {
  const io = (kind: string, i: number): string =>
    `  { name: "${kind}${i}" data_type: ${type} dims: [ 16 ] }`;
  return (
    `name: "${name}"\n${head}\nmax_batch_size: 8\n` +
    `input [\n${io('INPUT', 0)},\n${io('INPUT', 1)}\n]\n` +
    `output [\n${io('OUTPUT', 0)},\n${io('OUTPUT', 1)}\n]\n`
  );
}

/** qa/python_models/add_sub (and execute_delayed_model when `delayMs` > 0) in JavaScript. */
function addSubModule(delayMs: number): string {
  return `export async function execute(requests) {
  await new Promise((resolve) => setTimeout(resolve, ${delayMs}));
  return requests.map((r) => {
    const a = r.inputs.INPUT0.data;
    const b = r.inputs.INPUT1.data;
    const shape = r.inputs.INPUT0.shape;
    return {
      outputs: {
        OUTPUT0: { shape, data: Int32Array.from(a, (x, i) => x + b[i]) },
        OUTPUT1: { shape, data: Int32Array.from(a, (x, i) => x - b[i]) },
      },
    };
  });
}
`;
}

/** The examples' simple_string: add/sub over integers written as strings. */
const STRING_ADD_SUB_MODULE = `export function execute(requests) {
  return requests.map((r) => {
    const a = r.inputs.INPUT0.strings.map(Number);
    const b = r.inputs.INPUT1.strings.map(Number);
    const shape = r.inputs.INPUT0.shape;
    return {
      outputs: {
        OUTPUT0: { shape, data: a.map((x, i) => String(x + b[i])) },
        OUTPUT1: { shape, data: a.map((x, i) => String(x - b[i])) },
      },
    };
  });
}
`;

async function writeJavaScriptModel(
  dir: string,
  name: string,
  module: string,
  type = 'TYPE_INT32',
): Promise<void> {
  await mkdir(path.join(dir, name, '1'), { recursive: true });
  await writeFile(
    path.join(dir, name, 'config.pbtxt'),
    addSubConfig(name, 'backend: "javascript"', type),
  );
  await writeFile(path.join(dir, name, '1', 'model.mjs'), module);
}

/** Writes `<dir>/models` and `<dir>/python_models` afresh. */
export async function writeL0ShmRepositories(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const models = path.join(dir, 'models');
  const onnx = 'platform: "onnxruntime_onnx"';
  await writeModels(models, [
    { name: 'simple', version: 1, bytes: simpleModel(), config: addSubConfig('simple', onnx) },
    {
      name: 'onnx_int32_int32_int32',
      version: 1,
      bytes: simpleModel(),
      config: addSubConfig('onnx_int32_int32_int32', onnx),
    },
  ]);
  await writeJavaScriptModel(models, 'python_int32_int32_int32', addSubModule(0));
  await writeJavaScriptModel(models, 'simple_string', STRING_ADD_SUB_MODULE, 'TYPE_STRING');
  // execute_delayed_model sleeps 15 s in execute; the default 30 s execute timeout covers it.
  await writeJavaScriptModel(path.join(dir, 'python_models'), 'simple', addSubModule(15_000));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: l0-shm-repository.js <dir>');
  await writeL0ShmRepositories(path.resolve(dir));
}
