// Samples from a directory of inference requests: each `*.json` file one KServe v2 JSON request
// body, exactly what a client POSTs to /v2/models/<model>/infer (`{"inputs": [{"name",
// "datatype", "shape", "data"}]}`; other fields are ignored). Real requests are the best samples a
// validation can replay; a person can save them from a client or write them by hand, and this is
// the format the server's request recording is to write. Each is checked against the model's
// config; a file that does not fit is a usage error naming the file and what was expected.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import { decodeStringElements } from '../execution/onnxruntime/string-tensor.js';
import { jsonTensorByteLength, writeJsonTensor } from '../protocol/json-tensor.js';
import { fromConfigType, isDatatype, numericArray } from '../tensor/datatypes.js';
import { elementCount } from '../tensor/shape.js';
import { inputLabel } from '../tensor/tensor-label.js';
import type { HostTensor } from '../compare/host-tensor.js';
import type { Sample } from './samples.js';
import { usage } from './usage-error.js';

/** Request files read at most: a replay is a check, not a load test. */
export const MAX_REQUEST_FILES = 1000;

export async function readRequestFiles(dir: string, config: ModelConfig): Promise<Sample[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    throw usage(
      `--requests: expected a directory of .json requests, got ${dir} (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
    );
  }
  if (names.length === 0)
    throw usage(`--requests: expected .json request files in ${dir}, found none`);
  const samples: Sample[] = [];
  for (const name of names.slice(0, MAX_REQUEST_FILES)) {
    const file = path.join(dir, name);
    let body: unknown;
    try {
      body = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      throw usage(`--requests: ${file} is not a JSON request (${(e as Error).message})`);
    }
    samples.push(requestSample(name, file, body, config));
  }
  return samples;
}

function requestSample(label: string, file: string, body: unknown, config: ModelConfig): Sample {
  const bad = (what: string): Error => usage(`--requests: ${file}: ${what}`);
  const inputs = (body as { inputs?: unknown } | null)?.inputs;
  if (!Array.isArray(inputs))
    throw bad('expected an object with an "inputs" array (a KServe v2 JSON request)');
  const batched = config.max_batch_size > 0;
  const feeds = new Map<string, HostTensor>();
  let rows = 1;
  for (const raw of inputs as unknown[]) {
    const { name, datatype, shape, data } = (raw ?? {}) as Record<string, unknown>;
    const t = config.input.find((i) => i.name === name);
    if (t === undefined) {
      throw bad(
        `input ${JSON.stringify(name)} is not an input of model "${config.name}", which has ${config.input.map((i) => `"${i.name}"`).join(', ')}`,
      );
    }
    const expected = fromConfigType(t.data_type);
    if (!isDatatype(datatype) || datatype !== expected) {
      throw bad(
        `input "${t.name}": expected datatype ${expected}, got ${JSON.stringify(datatype)}`,
      );
    }
    if (
      !Array.isArray(shape) ||
      !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)
    ) {
      throw bad(
        `input "${t.name}": expected a shape of non-negative integers, got ${JSON.stringify(shape)}`,
      );
    }
    const dims = shape as number[];
    const want = batched ? [-1, ...t.dims] : [...t.dims];
    if (
      dims.length !== want.length ||
      want.some((w, i) => w >= 0 && w !== dims[i]) ||
      (batched && (dims[0] ?? 0) > config.max_batch_size)
    ) {
      throw bad(
        `input "${t.name}": expected shape [${want.join(',')}]${batched ? ` with at most ${config.max_batch_size} rows` : ''}, got [${dims.join(',')}]`,
      );
    }
    if (batched) rows = dims[0] ?? 1;
    const count = elementCount(dims);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(jsonTensorByteLength(data, datatype, count, inputLabel(t.name, dims)));
      writeJsonTensor(data, datatype, count, bytes, inputLabel(t.name, dims));
    } catch (e) {
      throw bad((e as Error).message);
    }
    // The model takes the reshaped shape, when the config reshapes.
    const modelDims =
      t.reshape === undefined
        ? dims
        : batched
          ? [dims[0] ?? 1, ...t.reshape.shape]
          : [...t.reshape.shape];
    if (datatype === 'BYTES') {
      feeds.set(t.name, {
        datatype,
        dims: modelDims,
        data: decodeStringElements(bytes, count, t.name),
      });
    } else {
      const Ctor = numericArray(datatype);
      feeds.set(t.name, { datatype, dims: modelDims, data: new Ctor(bytes.buffer, 0, count) });
    }
  }
  for (const t of config.input) {
    if (t.optional !== true && !feeds.has(t.name))
      throw bad(`expected input "${t.name}", which it lacks`);
  }
  return { label, rows, feeds };
}
