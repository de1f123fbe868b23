// A JavaScript model's responses -> shared memory. Each response is checked against the config
// (output names, datatype, shape against dims and the member's rows, element count) into a
// `CheckedResponse` of plain bytes; only checked responses are packed, all of one run's into ONE
// tensor block, each output of each member in a slot of its own (so members may differ in shape
// along -1 dims). From the reply on, the caller owns the block.

import { fail } from '../../errors.js';
import { TensorBlock, type SlotSpec } from '../../memory/tensor-block.js';
import { encodeBytesTensor } from '../../tensor/bytes-tensor.js';
import { datatypeInfo, isDatatype, type Datatype } from '../../tensor/datatypes.js';
import { elementCount, shapeText } from '../../tensor/shape.js';
import type { TensorDescriptor } from '../../tensor/tensor.js';
import type { OutputSpec } from './js-worker-init.js';

/** What one response is checked against. */
export interface ResponseRules {
  readonly outputs: readonly OutputSpec[];
  /** Rows lead every output (max_batch_size > 0). */
  readonly batched: boolean;
}

/** One output of a checked response: its slot and the bytes that fill it. */
export interface CheckedOutput {
  readonly spec: SlotSpec & { readonly byteLength: number };
  readonly bytes: Uint8Array;
}

/** A response whose outputs are the wanted ones, in the wanted order, and match the config. */
export interface CheckedResponse {
  readonly outputs: readonly CheckedOutput[];
}

const bad = (message: string): Error => fail('MODEL_EXECUTE_FAILED', message);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (ArrayBuffer.isView(v)) return v.constructor.name;
  return typeof v === 'object' ? `an object` : `${typeof v} ${String(v)}`;
}

/**
 * Checks a response (`{ outputs: { <name>: { shape, data, datatype? } } }`) against the config: it
 * must hold every `wanted` output (outputs it adds that exist in the config are dropped), `rows`
 * rows when batched, and data that fits the shape. Throws MODEL_EXECUTE_FAILED saying what was
 * expected and what arrived.
 */
export function checkResponse(
  response: unknown,
  wanted: readonly string[],
  rows: number | undefined,
  rules: ResponseRules,
): CheckedResponse {
  if (typeof response !== 'object' || response === null) {
    throw bad(`expected a response { outputs: {...} } or an Error, got ${describe(response)}`);
  }
  const outputs = (response as { outputs?: unknown }).outputs;
  if (typeof outputs !== 'object' || outputs === null) {
    throw bad(`expected the response's "outputs" to be an object, got ${describe(outputs)}`);
  }
  const given = outputs as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!rules.outputs.some((o) => o.name === name)) {
      const known = rules.outputs.map((o) => o.name).join(', ');
      throw bad(`output "${name}" is not in the model config (its outputs: ${known})`);
    }
  }
  return {
    outputs: wanted.map((name) => {
      const spec = rules.outputs.find((o) => o.name === name);
      if (spec === undefined) throw fail('INTERNAL', `output "${name}" is not configured`);
      if (!Object.prototype.hasOwnProperty.call(given, name)) {
        throw bad(`the response has no output "${name}", which the request asked for`);
      }
      return checkOutput(spec, given[name], rows, rules.batched);
    }),
  };
}

function checkOutput(
  spec: OutputSpec,
  value: unknown,
  rows: number | undefined,
  batched: boolean,
): CheckedOutput {
  const at = `output "${spec.name}"`;
  if (typeof value !== 'object' || value === null) {
    throw bad(`${at}: expected { shape, data }, got ${describe(value)}`);
  }
  const { datatype, shape, data } = value as {
    datatype?: unknown;
    shape?: unknown;
    data?: unknown;
  };
  if (datatype !== undefined && (!isDatatype(datatype) || datatype !== spec.datatype)) {
    throw bad(`${at}: expected datatype ${spec.datatype} (the config's), got ${String(datatype)}`);
  }
  const dims = checkShape(at, shape, spec.dims, batched ? rows : undefined, batched);
  const count = elementCount(dims);
  const bytes = tensorBytes(at, spec.datatype, data, count, bad);
  return {
    spec: { name: spec.name, datatype: spec.datatype, shape: dims, byteLength: bytes.byteLength },
    bytes,
  };
}

function checkShape(
  at: string,
  shape: unknown,
  dims: readonly number[],
  rows: number | undefined,
  batched: boolean,
): number[] {
  const valid =
    Array.isArray(shape) && shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0);
  const want = batched ? [rows ?? -1, ...dims] : dims;
  const wantText = shapeText(want);
  if (!valid) throw bad(`${at}: expected a shape like ${wantText}, got ${describe(shape)}`);
  const got = shape as number[];
  const fits = got.length === want.length && want.every((d, i) => d === -1 || d === got[i]);
  if (!fits) {
    const why = batched ? ` (the batch dim first: this request has ${rows ?? '?'} row(s))` : '';
    throw bad(`${at}: expected shape ${wantText}${why}, got ${shapeText(got)}`);
  }
  return [...got];
}

/**
 * A tensor's `data` in the JS mapping (the table in docs/pipelines.md) -> its raw bytes (BYTES: the
 * length-prefixed layout), checked to hold `count` elements; `bad` makes the error for a mismatch.
 * A TypedArray of the right kind is viewed, not copied. Also used for BLS call inputs.
 */
export function tensorBytes(
  at: string,
  datatype: Datatype,
  data: unknown,
  count: number,
  bad: (message: string) => Error,
): Uint8Array {
  return datatype === 'BYTES'
    ? bytesData(at, data, count, bad)
    : numericData(at, datatype, data, count, bad);
}

/** A TypedArray of the datatype's kind, or a plain array of numbers (bigints, booleans). */
function numericData(
  at: string,
  datatype: Datatype,
  data: unknown,
  count: number,
  bad: (message: string) => Error,
): Uint8Array {
  const info = datatypeInfo(datatype);
  const ctor = info.array;
  if (ctor === null) throw fail('INTERNAL', `${datatype} has no TypedArray`);
  if (ArrayBuffer.isView(data)) {
    if (!(data instanceof ctor)) {
      throw bad(`${at}: ${datatype} data must be a ${ctor.name}, got ${describe(data)}`);
    }
    if (data.length !== count) {
      throw bad(`${at}: the shape holds ${count} element(s), the data has ${data.length}`);
    }
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  if (!Array.isArray(data)) {
    throw bad(`${at}: expected data as a ${ctor.name} or an array, got ${describe(data)}`);
  }
  if (data.length !== count) {
    throw bad(`${at}: the shape holds ${count} element(s), the data has ${data.length}`);
  }
  if (info.json === 'half' || info.json === 'bfloat') {
    throw bad(`${at}: ${datatype} data must be a Uint16Array of bit patterns, got an array`);
  }
  const out = new ctor(new ArrayBuffer(count * info.byteSize), 0, count);
  const big = info.json === 'bigint';
  for (let i = 0; i < count; i++) {
    const v: unknown = data[i];
    if (big) {
      if (typeof v === 'bigint') (out as BigInt64Array)[i] = v;
      else if (Number.isSafeInteger(v)) (out as BigInt64Array)[i] = BigInt(v as number);
      else throw bad(`${at}: element ${i}: expected a bigint or an integer, got ${describe(v)}`);
    } else if (typeof v === 'number' || typeof v === 'boolean') {
      (out as Float64Array)[i] = Number(v);
    } else {
      throw bad(`${at}: element ${i}: expected a number, got ${describe(v)}`);
    }
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** BYTES: an array of strings (written as UTF-8) and/or Uint8Arrays, framed in the BYTES layout. */
function bytesData(
  at: string,
  data: unknown,
  count: number,
  bad: (message: string) => Error,
): Uint8Array {
  if (!Array.isArray(data)) {
    throw bad(
      `${at}: BYTES data must be an array of strings or Uint8Arrays, got ${describe(data)}`,
    );
  }
  if (data.length !== count) {
    throw bad(`${at}: the shape holds ${count} element(s), the data has ${data.length}`);
  }
  data.forEach((e: unknown, i) => {
    if (typeof e !== 'string' && !(e instanceof Uint8Array)) {
      throw bad(`${at}: element ${i}: expected a string or a Uint8Array, got ${describe(e)}`);
    }
  });
  // One extra copy (here, then into the block): BYTES sizes are known only once encoded.
  return encodeBytesTensor(data as (string | Uint8Array)[]);
}

/**
 * Copies checked responses into one new tensor block: per response, its outputs' descriptors in
 * order (`undefined` entries, failed members, get none and take no space).
 */
export function packResponses(
  responses: readonly (CheckedResponse | undefined)[],
): (readonly TensorDescriptor[] | undefined)[] {
  const specs = responses.flatMap((r) => r?.outputs.map((o) => o.spec) ?? []);
  const block = TensorBlock.allocate(specs);
  let slot = 0;
  return responses.map((r) => {
    if (r === undefined) return undefined;
    return r.outputs.map((o) => {
      block.write(slot, o.bytes);
      return block.descriptor(slot++);
    });
  });
}
