// The JSON body scan (json-body-scan.ts) against the old path, JSON.parse of the whole body: on
// random request bodies, valid and not, both must validate to the same tensors, or fail with the
// same error code and text. Bodies are written by hand so that key order, number spelling,
// whitespace and nesting vary, and are sometimes cut or corrupted.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { validateRequest } from '../../../src/dataplane/validate-request.js';
import { InferenceServerError } from '../../../src/errors.js';
import { BinarySection } from '../../../src/http/binary-section.js';
import { scanJsonBody } from '../../../src/http/json-body-scan.js';
import { decodeJsonRequest, requestFromDocument } from '../../../src/http/json-request.js';
import { parseJsonBytes } from '../../../src/http/json-text.js';
import type { DecodedRequest } from '../../../src/protocol/inference-request.js';
import { MODELS } from '../dataplane/validation-models.js';

const INPUTS = [
  ['bool', 'BOOL'],
  ['u8', 'UINT8'],
  ['u16', 'UINT16'],
  ['u32', 'UINT32'],
  ['u64', 'UINT64'],
  ['i8', 'INT8'],
  ['i16', 'INT16'],
  ['i32', 'INT32'],
  ['i64', 'INT64'],
  ['f16', 'FP16'],
  ['f32', 'FP32'],
  ['f64', 'FP64'],
  ['str', 'BYTES'],
] as const;

function oldDecode(body: Uint8Array): DecodedRequest {
  return requestFromDocument(parseJsonBytes(body), new BinarySection(new Uint8Array(0), false));
}

/** What validation makes of a body: the tensors' bytes, or the error's code and text. */
function outcome(decode: (body: Uint8Array) => DecodedRequest, body: Uint8Array): string {
  try {
    const v = validateRequest(MODELS.types, decode(body), {
      signal: new AbortController().signal,
      arrivalNs: 0,
      maxInputBytes: 1 << 20,
    });
    return JSON.stringify({
      id: v.id,
      inputs: v.inputs.map((i) => {
        const target = new Uint8Array(i.byteLength);
        i.write(target);
        return [i.name, i.datatype, i.shape, Buffer.from(target).toString('hex')];
      }),
      outputs: v.outputs,
    });
  } catch (e) {
    if (e instanceof InferenceServerError) return `${e.code}: ${e.message}`;
    throw e;
  }
}

const numberText = fc.oneof(
  { weight: 6, arbitrary: fc.double().map((x) => (Object.is(x, -0) ? '-0' : String(x))) },
  { weight: 6, arbitrary: fc.integer({ min: -70000, max: 70000 }).map(String) },
  { weight: 3, arbitrary: fc.float().map((x) => String(x)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.integer({ min: -999, max: 999 }),
        fc.nat(99999),
        fc.constantFrom('e', 'E'),
        fc.integer({ min: -40, max: 40 }),
      )
      .map(([a, b, e, x]) => `${a}.${b}${e}${x}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '-0',
      '0.0',
      '1E400',
      '-1e-400',
      '9007199254740993',
      '123456789012345678901',
      '0.10000000149011612',
      '4294967295',
      '4294967296',
      '-2147483649',
      '01',
      '1.',
      '.5',
      '+1',
      '-',
      '1e',
      'NaN',
      '-NaN',
      'Infinity',
      '-Infinity',
      'Inf',
      '-Inf',
      'Infinityx',
      'true',
      'false',
      'null',
      '"x"',
      '{}',
    ),
  },
);
const boolText = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('true', 'false') },
  { weight: 1, arbitrary: fc.constantFrom('1', '0', 'null', '"true"', 'tru') },
);
const stringText = fc.oneof(
  { weight: 6, arbitrary: fc.string().map((s) => JSON.stringify(s)) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme' }).map((s) => JSON.stringify(s)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('"a\\"b"', '"\\u0041"', '"\\u0000"', '"é"', '"a\tb"', '1', '"\\x"'),
  },
);

/** Element texts nested into `dims` (flat when one dim), sometimes made ragged. */
function nest(items: readonly string[], inner: number, ragged: boolean, sp: string): string {
  if (inner <= 1 || items.length % inner !== 0) return `[${items.join(`,${sp}`)}]`;
  const rows: string[] = [];
  for (let k = 0; k < items.length; k += inner)
    rows.push(`[${items.slice(k, k + inner).join(',')}]`);
  if (ragged && rows.length > 0) rows[0] = `[${rows[0]}]`;
  return `[${sp}${rows.join(`,${sp}`)}${sp}]`;
}

const inputText = fc
  .record({
    which: fc.nat(INPUTS.length - 1),
    declared: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('FP32', 'INT8', 'BYTES', 'FOO') },
    ),
    count: fc.integer({ min: 0, max: 6 }),
    shapeDelta: fc.oneof(
      { weight: 8, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: -1, max: 1 }) },
    ),
    inner: fc.constantFrom(1, 1, 2, 3),
    ragged: fc.oneof(
      { weight: 4, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
    order: fc.constantFrom('ndsD', 'nsdD', 'Dnds', 'ndDs', 'nsDd'),
    sp: fc.constantFrom('', ' ', '\n  '),
    elements: fc.array(fc.tuple(numberText, boolText, stringText), { minLength: 6, maxLength: 6 }),
    parameters: fc.constantFrom('', '"parameters":{"p":1}', '"parameters":{"x":NaN}'),
  })
  .map((r) => {
    const [name, datatype] = INPUTS[r.which] as (typeof INPUTS)[number];
    const dt = r.declared ?? datatype;
    const items = r.elements
      .slice(0, r.count)
      .map(([n, b, s]) => (datatype === 'BOOL' ? b : datatype === 'BYTES' ? s : n));
    const members: Record<string, string> = {
      n: `"name":"${name}"`,
      d: `"datatype":"${dt}"`,
      s: `"shape":[${Math.max(0, r.count + r.shapeDelta)}]`,
      D: `"data":${r.sp}${nest(items, r.inner, r.ragged, r.sp)}`,
    };
    const parts = [...r.order].map((k) => members[k] as string);
    if (r.parameters !== '') parts.push(r.parameters);
    return `{${r.sp}${parts.join(`,${r.sp}`)}${r.sp}}`;
  });

const bodyText = fc
  .record({
    inputs: fc.array(inputText, { minLength: 1, maxLength: 3 }),
    id: fc.constantFrom('', '"id":"r1",', '"id":5,'),
    outputs: fc.constantFrom('', ',"outputs":[{"name":"out"}]', ',"outputs":[{"name":"nope"}]'),
    corrupt: fc.oneof(
      { weight: 10, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.nat(), fc.constantFrom('', ',', ']', '{', '"', '1', 'x')),
      },
    ),
  })
  .map((r) => {
    let text = `{${r.id}"inputs":[${r.inputs.join(',')}]${r.outputs}}`;
    if (r.corrupt !== undefined) {
      const [at, what] = r.corrupt;
      const k = at % (text.length + 1);
      text = text.slice(0, k) + what + text.slice(k + 1);
    }
    return text;
  });

/** The decoder with its size threshold at 0: every body is scanned. */
const scanEvery = (body: Uint8Array): ReturnType<typeof decodeJsonRequest> =>
  decodeJsonRequest(body, 0);

void test('property: the scan and the old path validate to the same tensors or the same error', () => {
  fc.assert(
    fc.property(bodyText, (text) => {
      const body = new Uint8Array(Buffer.from(text, 'utf8'));
      assert.equal(outcome(scanEvery, body), outcome(oldDecode, body), text);
    }),
    { numRuns: 3000 },
  );
});

void test('the scan takes ordinary bodies, and leaves data before datatype to the old path', () => {
  const ordinary = Buffer.from(
    '{"inputs":[{"name":"f32","datatype":"FP32","shape":[2,2],"data":[[1,2.5],[-3e2,NaN]]}]}',
  );
  const scanned = scanJsonBody(ordinary);
  assert.ok(scanned !== undefined);
  const t = scanned.tensors.get(0);
  assert.equal(t?.count, 4);
  assert.deepEqual([...new Float32Array(t.bytes.slice().buffer)], [1, 2.5, -300, NaN]);
  assert.equal(
    Buffer.from(scanned.rest).toString(),
    '{"inputs":[{"name":"f32","datatype":"FP32","shape":[2,2],"data":0}]}',
  );
  const late = Buffer.from('{"inputs":[{"name":"f32","data":[1],"datatype":"FP32","shape":[1]}]}');
  assert.equal(scanJsonBody(late), undefined);
});
