// The tensor values requests carry, per --input-data: all zeros, seeded random values, or
// perf_analyzer's JSON data file ({"data": [{"INPUT0": [...] | {"content": [...], "shape": [...]}
// | {"b64": "..."}, ...}, ...]}). Data is produced once, before the run: fixed payloads make runs
// comparable, and the generator spends no CPU making data.

import { readFileSync } from 'node:fs';
import { datatypeInfo, type Datatype } from 'infernode/tooling';
import { seededRandom } from '../load/arrival-schedule.js';
import type { InputDataSource } from '../options/bench-options.js';
import { UsageError } from '../options/usage-error.js';
import type { ResolvedInput } from './model-signature.js';

/** Elements of one tensor in row-major order: numbers, booleans (BOOL) or strings (BYTES). */
export type Elements = readonly number[] | readonly boolean[] | readonly string[];

export interface TensorValues {
  readonly name: string;
  readonly datatype: Datatype;
  /** The wire shape (with the batch dimension when the model batches). */
  readonly shape: readonly number[];
  readonly elements: Elements;
}

/** Everything one request sends. */
export type InputSet = readonly TensorValues[];

export interface InputDataOptions {
  readonly batchSize: number;
  readonly seed: number;
  readonly stringLength: number;
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function generated(
  kind: 'zero' | 'random',
  input: ResolvedInput,
  count: number,
  opts: InputDataOptions,
  random: () => number,
): Elements {
  const info = datatypeInfo(input.datatype);
  switch (info.json) {
    case 'bool':
      return Array.from({ length: count }, () => kind === 'random' && random() < 0.5);
    case 'string':
      return Array.from({ length: count }, () =>
        Array.from({ length: opts.stringLength }, () =>
          kind === 'zero' ? '0' : ALPHANUMERIC[Math.floor(random() * ALPHANUMERIC.length)],
        ).join(''),
      );
    case 'int':
    case 'bigint':
      // Small non-negative integers: valid for every integer type, and sums stay in range.
      return Array.from({ length: count }, () =>
        kind === 'zero' ? 0 : Math.floor(random() * 100),
      );
    case 'float':
    case 'half':
    case 'bfloat':
      // fround: the value an FP32 tensor can hold exactly, so JSON and binary send the same tensor.
      return Array.from({ length: count }, () => (kind === 'zero' ? 0 : Math.fround(random())));
  }
}

export function generateInputSet(
  kind: 'zero' | 'random',
  inputs: readonly ResolvedInput[],
  opts: InputDataOptions,
): InputSet {
  const random = seededRandom(opts.seed);
  return inputs.map((input) => ({
    name: input.name,
    datatype: input.datatype,
    shape: input.shape,
    elements: generated(
      kind,
      input,
      input.shape.reduce((a, b) => a * b, 1),
      opts,
      random,
    ),
  }));
}

/** One data-file entry's value for one input, checked against the input's row shape. */
function rowFromFile(value: unknown, input: ResolvedInput, where: string): unknown[] {
  let content: unknown = value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const v = value as { content?: unknown; shape?: unknown; b64?: unknown };
    if (v.b64 !== undefined) {
      throw new UsageError(
        `${where}: "b64" input data is not supported; give "content" or an array`,
      );
    }
    if (v.shape !== undefined) {
      const shape = v.shape as unknown[];
      if (!Array.isArray(shape) || shape.join(',') !== input.rowShape.join(',')) {
        throw new UsageError(
          `${where}: shape ${JSON.stringify(v.shape)} differs from the row shape [${input.rowShape.join(',')}]`,
        );
      }
    }
    content = v.content;
  }
  if (!Array.isArray(content))
    throw new UsageError(`${where}: expected an array or {"content": [...]}`);
  const flat = (content as unknown[]).flat(Infinity);
  if (flat.length !== input.rowElements) {
    throw new UsageError(
      `${where}: expected ${input.rowElements} elements for shape [${input.rowShape.join(',')}], got ${flat.length}`,
    );
  }
  const json = datatypeInfo(input.datatype).json;
  for (const e of flat) {
    const ok =
      json === 'string'
        ? typeof e === 'string'
        : json === 'bool'
          ? typeof e === 'boolean' || e === 0 || e === 1
          : typeof e === 'number';
    if (!ok)
      throw new UsageError(
        `${where}: element ${JSON.stringify(e)} is not a valid ${input.datatype} value`,
      );
  }
  return json === 'bool' ? flat.map((e) => e === true || e === 1) : flat;
}

/**
 * perf_analyzer's data file: each entry is one batch row. A request of batch size b takes b
 * consecutive entries (wrapping), and there are as many distinct requests as entries.
 */
export function inputSetsFromFile(
  path: string,
  inputs: readonly ResolvedInput[],
  batchSize: number,
  batched: boolean,
): InputSet[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--input-data ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const entries = (doc as { data?: unknown }).data;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new UsageError(
      `--input-data ${path}: expected {"data": [ {<input>: [...]}, ... ]} with at least one entry`,
    );
  }
  if (entries.some((e) => Array.isArray(e))) {
    throw new UsageError(
      `--input-data ${path}: sequence streams (arrays of arrays) are not supported`,
    );
  }
  const rows = (entries as Record<string, unknown>[]).map((entry, k) =>
    inputs.map((input) => {
      const value = entry[input.name];
      if (value === undefined)
        throw new UsageError(`--input-data ${path}: data[${k}] has no "${input.name}"`);
      return rowFromFile(value, input, `--input-data ${path}: data[${k}].${input.name}`);
    }),
  );
  const rowsPerRequest = batched ? batchSize : 1;
  return rows.map((_, k) =>
    inputs.map((input, i) => ({
      name: input.name,
      datatype: input.datatype,
      shape: input.shape,
      elements: Array.from(
        { length: rowsPerRequest },
        (_, r) => rows[(k + r) % rows.length]?.[i] ?? [],
      ).flat() as Elements,
    })),
  );
}

export function loadInputSets(
  source: InputDataSource,
  inputs: readonly ResolvedInput[],
  batched: boolean,
  opts: InputDataOptions,
): InputSet[] {
  switch (source.kind) {
    case 'zero':
    case 'random':
      return [generateInputSet(source.kind, inputs, opts)];
    case 'file':
      return inputSetsFromFile(source.path, inputs, opts.batchSize, batched);
  }
}
