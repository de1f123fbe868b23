// Property tests over the codecs: (1) hostile bodies only ever produce catalogued errors, (2) random
// tensors survive encode -> decode unchanged, (3) `__proto__` / `constructor` keys pollute nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DATATYPE_TABLE,
  DATATYPES,
  isDatatype,
  type Datatype,
} from '../../../src/tensor/datatypes.js';
import { InferenceServerError } from '../../../src/errors.js';
import { bytesElements, encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import { decodeInferBody } from '../../../src/http/decode-infer-body.js';
import { encodeInferResponse } from '../../../src/http/encode-infer-response.js';
import type { DecodedRequest, ResponseOutput } from '../../../src/protocol/inference-request.js';
import { jsonTensorByteLength, writeJsonTensor } from '../../../src/protocol/json-tensor.js';
import { parseJsonBytes } from '../../../src/http/json-text.js';
import { checkRawTensor } from '../../../src/tensor/raw-tensor.js';
import { utf8 } from '../protocol/expect-error.js';

/** Runs `fn`; anything thrown must be an InferenceServerError. */
function onlyCatalogued(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof InferenceServerError)) {
      assert.fail(
        `non-catalogued throw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      );
    }
  }
}

/** The element count a shape implies, if it is a small valid shape. */
function shapeCount(shape: readonly unknown[]): number | undefined {
  let n = 1;
  for (const d of shape) {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) return undefined;
    n *= d;
  }
  return n <= 64 ? n : undefined;
}

/**
 * Feeds every decoded input through the tensor-data functions validation calls, with the count its
 * shape implies (or `fallback` when the shape is not valid).
 */
function exerciseTensors(req: DecodedRequest, fallback: number): void {
  for (const input of req.inputs) {
    const datatype: Datatype = isDatatype(input.datatype) ? input.datatype : 'FP32';
    const count = shapeCount(input.shape) ?? fallback;
    onlyCatalogued(() => {
      if (input.data.kind === 'raw') {
        checkRawTensor(input.data.bytes, datatype, count);
        return;
      }
      // Already typed by the decoder: nothing left to convert.
      if (input.data.kind === 'typed' || input.data.kind === 'shm') return;
      const n = jsonTensorByteLength(input.data.values, datatype, count);
      writeJsonTensor(input.data.values, datatype, count, new Uint8Array(n));
    });
  }
}

const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  ' ',
  '\\',
  '1',
  '-',
  '0.5',
  'e9',
  'NaN',
  'Infinity',
  '-Inf',
  'true',
  'null',
  '"inputs"',
  '"outputs"',
  '"name"',
  '"datatype"',
  '"shape"',
  '"data"',
  '"id"',
  '"parameters"',
  '"binary_data_size"',
  '"FP32"',
  '"BYTES"',
  '"__proto__"',
  '"triton_x"',
  '"a"',
];
const jsonish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(''));

/** Mostly `good`, sometimes any JSON value at all. */
const sometimes = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: good, weight: 15 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  );

const elements = fc.oneof(
  fc.array(fc.oneof(fc.double(), fc.integer({ min: -300, max: 300 }), fc.boolean(), fc.string()), {
    maxLength: 8,
  }),
  fc.array(fc.array(fc.integer({ min: -300, max: 300 }), { maxLength: 3 }), { maxLength: 3 }),
);

/** Request-shaped documents: mostly well formed, with any member sometimes replaced by junk. */
const requestish = fc
  .record(
    {
      id: sometimes(fc.string()),
      parameters: sometimes(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.boolean())),
      ),
      inputs: sometimes(
        fc.array(
          fc.record(
            {
              name: sometimes(fc.constantFrom('A', 'B', 'C')),
              datatype: sometimes(fc.constantFrom(...DATATYPES)),
              shape: sometimes(fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 3 })),
              data: sometimes(elements),
              parameters: sometimes(
                fc.oneof(
                  { arbitrary: fc.record({ note: fc.string() }), weight: 4 },
                  { arbitrary: fc.record({ binary_data_size: fc.nat(16) }), weight: 1 },
                ),
              ),
            },
            { requiredKeys: ['name', 'datatype', 'shape', 'data'] },
          ),
          { minLength: 1, maxLength: 4 },
        ),
      ),
      outputs: sometimes(
        fc.array(fc.record({ name: sometimes(fc.constantFrom('O', 'P')) }), { maxLength: 3 }),
      ),
    },
    { requiredKeys: ['inputs'] },
  )
  .map((doc) => JSON.stringify(doc));

const header = fc.option(
  fc.oneof(
    fc.nat(200).map(String),
    fc.string({ maxLength: 12 }),
    fc.constantFrom('-1', '99999999999', '0'),
  ),
  { nil: undefined },
);

void describe('property: decoders only throw catalogued errors', () => {
  void it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), header, (body, h) => {
        onlyCatalogued(() => void decodeInferBody(body, h));
      }),
      { numRuns: 1000 },
    );
  });

  void it('JSON-ish token soup and request-shaped documents, with binary tails', () => {
    fc.assert(
      fc.property(
        fc.oneof(jsonish, requestish),
        fc.uint8Array({ maxLength: 40 }),
        fc.boolean(),
        fc.nat(8),
        (text, tail, useHeader, count) => {
          const head = utf8(text);
          const body = new Uint8Array(head.length + tail.length);
          body.set(head);
          body.set(tail, head.length);
          onlyCatalogued(() => {
            const r = decodeInferBody(
              useHeader ? body : head,
              useHeader ? String(head.length) : undefined,
            );
            if (!('rawBinary' in r)) exerciseTensors(r, count);
          });
        },
      ),
      { numRuns: 1500 },
    );
  });
});

/** Random raw bytes of `count` elements of `datatype` (BYTES: random strings, length-prefixed). */
function rawTensor(datatype: Datatype): fc.Arbitrary<{ bytes: Uint8Array; count: number }> {
  if (datatype === 'BYTES') {
    return fc
      .array(fc.string({ unit: 'grapheme', maxLength: 8 }), { maxLength: 12 })
      .map((s) => ({ bytes: encodeBytesTensor(s), count: s.length }));
  }
  const size = DATATYPE_TABLE[datatype].byteSize;
  return fc
    .nat(24)
    .chain((count) =>
      fc
        .uint8Array({ minLength: count * size, maxLength: count * size })
        .map((bytes) => ({ bytes, count })),
    );
}

/**
 * The bytes JSON can carry: every NaN made the canonical NaN the JSON path writes (payloads cannot
 * survive JSON), every non-zero BOOL byte made 1 (it prints as true).
 */
function canonical(datatype: Datatype, bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const v = new DataView(out.buffer);
  for (let i = 0; i < out.length; i += DATATYPE_TABLE[datatype].byteSize) {
    if (datatype === 'BOOL' && out[i] !== 0) out[i] = 1;
    if (datatype === 'FP32' && Number.isNaN(v.getFloat32(i, true))) v.setFloat32(i, NaN, true);
    if (datatype === 'FP64' && Number.isNaN(v.getFloat64(i, true))) v.setFloat64(i, NaN, true);
    const h = datatype === 'FP16' || datatype === 'BF16' ? v.getUint16(i, true) : 0;
    if (datatype === 'FP16' && (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0)
      v.setUint16(i, 0x7e00, true);
    if (datatype === 'BF16' && (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0)
      v.setUint16(i, 0x7fc0, true);
  }
  return out;
}

function jsonDataText(output: ResponseOutput): string {
  const body = encodeInferResponse({ model_name: 'm', model_version: '1', outputs: [output] }).body;
  const m = /"data":(\[.*\])\}\]\}$/s.exec(body as string);
  assert.ok(m);
  return m[1] as string;
}

void describe('property: random tensors round-trip', () => {
  for (const datatype of DATATYPES) {
    void it(`${datatype}: binary response bytes are the tensor bytes; JSON response re-encodes to them`, () => {
      fc.assert(
        fc.property(rawTensor(datatype), ({ bytes, count }) => {
          const output = {
            name: 'O',
            datatype,
            shape: [count],
            data: bytes,
            binary: true,
          } as const;
          const chunks = encodeInferResponse({
            model_name: 'm',
            model_version: '1',
            outputs: [output],
          }).body as readonly Uint8Array[];
          assert.deepEqual(
            Buffer.concat(chunks.slice(1).map((c) => Buffer.from(c))),
            Buffer.from(bytes),
          );

          const text = jsonDataText({ ...output, binary: false });
          if (datatype === 'INT64' || datatype === 'UINT64') {
            // JSON numbers past 2^53 cannot come back through JSON.parse; check the digits instead.
            const ints =
              text === '[]'
                ? []
                : text
                    .slice(1, -1)
                    .split(',')
                    .map((d) => BigInt(d));
            const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            const want = Array.from({ length: count }, (_, i) =>
              datatype === 'INT64' ? view.getBigInt64(i * 8, true) : view.getBigUint64(i * 8, true),
            );
            assert.deepEqual(ints, want);
            return;
          }
          const values = parseJsonBytes(utf8(text));
          const again = new Uint8Array(jsonTensorByteLength(values, datatype, count));
          writeJsonTensor(values, datatype, count, again);
          assert.deepEqual(again, datatype === 'BYTES' ? bytes : canonical(datatype, bytes));
          if (datatype === 'BYTES') assert.equal(bytesElements(again).length, count);
        }),
        { numRuns: 200 },
      );
    });
  }
});

/** JSON text of objects whose keys are often `__proto__`, `constructor` or `prototype`. */
const { doc: pollutingDoc } = fc.letrec<{ doc: string; value: string }>((tie) => ({
  doc: fc
    .array(
      fc.tuple(
        fc.constantFrom(
          '__proto__',
          'constructor',
          'prototype',
          'polluted',
          'inputs',
          'parameters',
          'data',
          'name',
        ),
        tie('value'),
      ),
      { maxLength: 5 },
    )
    .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1', '"x"', 'true', '{"polluted":"yes"}', '[1,2]'),
    tie('doc'),
    fc.array(tie('value'), { maxLength: 3 }).map((vs) => `[${vs.join(',')}]`),
  ),
}));

void describe('property: no prototype pollution', () => {
  void it('({}).polluted stays undefined and Object.prototype keeps its keys', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const wrapped = pollutingDoc.map(
      (d) =>
        `{"__proto__":${d},"constructor":{"prototype":${d}},"parameters":{"__proto__":"p"},"inputs":[` +
        `{"name":"a","datatype":"FP32","shape":[1],"data":[${d}],"parameters":{"__proto__":1}},` +
        `{"name":"b","datatype":"BYTES","shape":[1],"data":${d}}],"outputs":[{"name":"o","__proto__":${d}}]}`,
    );
    fc.assert(
      fc.property(fc.oneof(pollutingDoc, wrapped), (text) => {
        onlyCatalogued(() => {
          const r = decodeInferBody(utf8(text), undefined);
          if (!('rawBinary' in r)) exerciseTensors(r, 1);
        });
        assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
        assert.equal(({} as Record<string, unknown>)['x'], undefined);
      }),
      { numRuns: 500 },
    );
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  });
});
