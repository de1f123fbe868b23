// KServe v2 inference request bodies, as JSON or with the binary tensor extension, and the raw
// little-endian bytes of each tensor (shared with the raw-ORT comparator, which builds its ORT
// tensors from the same bytes the server receives).

import { datatypeInfo, numberToBf16Bits, numberToHalfBits } from 'infernode/tooling';
import type { RequestBody } from '../load/http-request.js';
import type { InputSet, TensorValues } from './input-data.js';

/** Little-endian bytes of a tensor (typed arrays are little-endian on every platform Node ships for). */
export function tensorBytes(t: TensorValues): Uint8Array {
  const info = datatypeInfo(t.datatype);
  const e = t.elements;
  switch (info.json) {
    case 'bool':
      return Uint8Array.from(e as readonly boolean[], (b) => (b ? 1 : 0));
    case 'string': {
      const encoded = (e as readonly string[]).map((s) => Buffer.from(s, 'utf8'));
      const out = Buffer.alloc(encoded.reduce((n, b) => n + 4 + b.length, 0));
      let at = 0;
      for (const b of encoded) {
        out.writeUInt32LE(b.length, at);
        b.copy(out, at + 4);
        at += 4 + b.length;
      }
      return out;
    }
    case 'half':
      return new Uint8Array(Uint16Array.from(e as readonly number[], numberToHalfBits).buffer);
    case 'bfloat':
      return new Uint8Array(Uint16Array.from(e as readonly number[], numberToBf16Bits).buffer);
    case 'bigint': {
      const big = (e as readonly number[]).map((n) => BigInt(Math.trunc(n)));
      const arr = t.datatype === 'UINT64' ? BigUint64Array.from(big) : BigInt64Array.from(big);
      return new Uint8Array(arr.buffer);
    }
    case 'int':
    case 'float': {
      if (info.array === null) throw new Error(`${t.datatype} has no TypedArray`);
      // Only number-valued arrays reach this case (64-bit integers are handled above).
      const arr = new (info.array as Float64ArrayConstructor)(e.length);
      (e as readonly number[]).forEach((n, i) => (arr[i] = n));
      return new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
    }
  }
}

/** `parameters`: request-level parameters (a sequence model's placeholders), none when absent. */
export function jsonRequestBody(
  set: InputSet,
  parameters?: Readonly<Record<string, unknown>>,
): RequestBody {
  const body = {
    ...(parameters !== undefined ? { parameters } : {}),
    inputs: set.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      data: t.elements,
    })),
  };
  return { body: Buffer.from(JSON.stringify(body), 'utf8'), contentType: 'application/json' };
}

/** Binary tensor extension: a JSON header, then each input's bytes; outputs come back binary too. */
export function binaryRequestBody(
  set: InputSet,
  parameters?: Readonly<Record<string, unknown>>,
): RequestBody {
  const data = set.map(tensorBytes);
  const header = {
    inputs: set.map((t, i) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      parameters: { binary_data_size: data[i]?.byteLength ?? 0 },
    })),
    parameters: { ...parameters, binary_data_output: true },
  };
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  return {
    body: Buffer.concat([head, ...data]),
    contentType: 'application/octet-stream',
    inferenceHeaderLength: head.length,
  };
}
