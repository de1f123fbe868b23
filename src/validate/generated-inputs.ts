// Inputs made up from a seed, when a model brings no samples of its own. Values stay well inside
// each datatype's range and in the ranges models usually take: floats uniform in [-1, 1), integers
// in [0, 100) (ids, indices and counts are non-negative and small, so an embedding lookup stays in
// its table), booleans 0/1, BYTES short lowercase words. Variable dims become 8. Generated inputs
// prove less than real ones, and the report says so.

import type { ModelConfig, ModelTensorConfig } from '../config/model-config.js';
import { fromConfigType, numericArray, type Datatype } from '../tensor/datatypes.js';
import { numberToBf16Bits, numberToHalfBits } from '../tensor/half.js';
import { elementCount } from '../tensor/shape.js';
import type { HostTensor } from '../compare/host-tensor.js';

/** What a variable (-1) dim of a generated input becomes. */
export const VARIABLE_DIM = 8;
export const INT_RANGE = 100;

export type Random = () => number;

/**
 * mulberry32, as scripts/onnx/seeded-random.ts generates model weights (scripts/ is not part of the
 * package, so the command carries its own copy): uniform in [0, 1), fully determined by the seed.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One generated tensor of `datatype` and `dims`. */
export function generateTensor(
  datatype: Datatype,
  dims: readonly number[],
  next: Random,
): HostTensor {
  const n = elementCount(dims);
  const int = (): number => Math.floor(next() * INT_RANGE);
  const float = (): number => next() * 2 - 1;
  switch (datatype) {
    case 'BYTES': {
      const words: string[] = [];
      for (let i = 0; i < n; i++) {
        const len = 1 + Math.floor(next() * 8);
        let w = '';
        for (let k = 0; k < len; k++) w += String.fromCharCode(97 + Math.floor(next() * 26));
        words.push(w);
      }
      return { datatype, dims, data: words };
    }
    case 'BOOL': {
      const a = new Uint8Array(n);
      for (let i = 0; i < n; i++) a[i] = next() < 0.5 ? 0 : 1;
      return { datatype, dims, data: a };
    }
    case 'INT64':
    case 'UINT64': {
      const a = new (numericArray(datatype))(new ArrayBuffer(n * 8), 0, n);
      for (let i = 0; i < n; i++) a[i] = BigInt(int());
      return { datatype, dims, data: a };
    }
    case 'FP16':
    case 'BF16': {
      const a = new Uint16Array(n);
      const bits = datatype === 'FP16' ? numberToHalfBits : numberToBf16Bits;
      for (let i = 0; i < n; i++) a[i] = bits(float());
      return { datatype, dims, data: a };
    }
    case 'FP32':
    case 'FP64': {
      const Ctor = numericArray(datatype);
      const a = new Ctor(new ArrayBuffer(n * Ctor.BYTES_PER_ELEMENT), 0, n);
      for (let i = 0; i < n; i++) a[i] = float();
      return { datatype, dims, data: a };
    }
    case 'UINT8':
    case 'UINT16':
    case 'UINT32':
    case 'INT8':
    case 'INT16':
    case 'INT32': {
      const Ctor = numericArray(datatype);
      const a = new Ctor(new ArrayBuffer(n * Ctor.BYTES_PER_ELEMENT), 0, n);
      for (let i = 0; i < n; i++) a[i] = int();
      return { datatype, dims, data: a };
    }
  }
}

/** The shape the model itself takes for one input (reshape applied, -1 made concrete). */
export function generatedShape(config: ModelConfig, t: ModelTensorConfig, rows: number): number[] {
  const dims = (t.reshape?.shape ?? t.dims).map((d) => (d < 0 ? VARIABLE_DIM : d));
  return config.max_batch_size > 0 ? [rows, ...dims] : dims;
}

/** Feeds for every required input of the model, `rows` rows each (no batch dim when it does not batch). */
export function generateFeeds(
  config: ModelConfig,
  rows: number,
  next: Random,
): Map<string, HostTensor> {
  const feeds = new Map<string, HostTensor>();
  for (const t of config.input) {
    if (t.optional === true) continue;
    const datatype = fromConfigType(t.data_type);
    if (datatype === undefined) throw new Error(`unvalidated data_type ${t.data_type}`);
    feeds.set(t.name, generateTensor(datatype, generatedShape(config, t, rows), next));
  }
  return feeds;
}
