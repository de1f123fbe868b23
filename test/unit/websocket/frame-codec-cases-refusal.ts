// Frame-codec cases for request frames that are refused: each with the id the answer goes to (or
// none, which closes the socket), the catalogued code and the exact message; then truncated and
// random bytes, which must only ever be refused with catalogued client errors.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DATATYPE_TABLE } from '../../../src/tensor/datatypes.js';
import type { DecodeResult } from '../../../src/websocket/ws-frames.js';
import {
  assertClientError,
  assertRefused,
  DATATYPES,
  sampleData,
  simpleSpec,
  type FrameCase,
  type TensorSpec,
} from './frame-codec-case.js';

/**
 * An unusable id: a BAD_ID refusal with no id to echo (nil on the wire), the socket left open, and a
 * message naming what arrived. The rule's wording differs by encoding (FlatBuffers ids are strings
 * only), so the message is matched up to it.
 */
function assertBadId(r: DecodeResult, got: RegExp): void {
  assert.equal(r.ok, false, 'the frame was accepted');
  if (r.ok) return;
  assert.equal(r.close, false, 'an unusable id keeps the socket open');
  assert.equal(r.close ? undefined : r.id, null);
  assert.equal(r.error.code, 'BAD_ID');
  assert.match(r.error.message, /^frame 'id' must be a string of 1-256 bytes/);
  assert.match(r.error.message, got);
  assert.match(r.error.message, /the frame was not run, and this error ends none of the requests/);
}
const BAD_VERSION = "frame 'version' must be a number or a string of digits, got a string";

const tensor = (name: string): TensorSpec => ({
  name,
  datatype: 'UINT8',
  shape: [1],
  data: Uint8Array.of(1),
});

/** A frame using every part of the format: the input to cut and damage. */
const FULL = simpleSpec({
  id: 'full',
  version: '2',
  inputs: DATATYPES.map((d) => ({ name: d, datatype: d, shape: [2], data: sampleData(d) })),
  outputs: [{ name: 'Y', parameters: { binary_data: true } }],
  parameters: { priority: 1, tag: 'x' },
});

export const REFUSAL_CASES: readonly FrameCase[] = [
  {
    id: 'refuse.model-name',
    title: 'refuses a model name outside the whitelist, answering its id',
    run(impl) {
      assertRefused(
        impl.codec.decode(impl.encodeInfer(simpleSpec({ model: '../etc' })), true),
        impl.wireId(1),
        'BAD_MODEL_NAME',
        'invalid model name "../etc": expected 1-128 characters of [A-Za-z0-9_.-], not "." or ".."',
      );
    },
  },
  {
    id: 'refuse.version',
    title: 'refuses a version that is not digits, or has more than 18',
    run(impl) {
      for (const version of ['v1', '1'.repeat(19), '-1']) {
        assertRefused(
          impl.codec.decode(impl.encodeInfer(simpleSpec({ version })), true),
          impl.wireId(1),
          'BAD_VERSION',
          BAD_VERSION,
        );
      }
    },
  },
  {
    id: 'refuse.string-id',
    title:
      'refuses an empty or over-long string id with BAD_ID and no id to echo; the socket stays open',
    run(impl) {
      const cases: readonly [string, RegExp][] = [
        ['', /got an empty string/],
        ['x'.repeat(257), /got .*257/],
        ['\u00e9'.repeat(129), /got .*258/],
      ];
      for (const [id, got] of cases) {
        assertBadId(impl.codec.decode(impl.encodeInfer(simpleSpec({ id })), true), got);
      }
    },
  },
  {
    id: 'refuse.integer-id',
    title: 'refuses a negative, fractional or unsafe integer id with BAD_ID and no id to echo',
    run(impl) {
      const cases: readonly [number, RegExp][] = [
        [-1, /got the negative fixint -1, below 0/],
        [1.5, /got .*1\.5/],
        [2 ** 53, /got .*9007199254740992/],
      ];
      for (const [id, got] of cases) {
        assertBadId(impl.codec.decode(impl.encodeInfer(simpleSpec({ id })), true), got);
      }
    },
  },
  {
    id: 'refuse.duplicate-names',
    title: 'refuses an input or output named twice',
    run(impl) {
      assertRefused(
        impl.codec.decode(
          impl.encodeInfer(simpleSpec({ inputs: [tensor('A'), tensor('A')] })),
          true,
        ),
        impl.wireId(1),
        'DUPLICATE_TENSOR',
        "input 'A' already exists in request",
      );
      assertRefused(
        impl.codec.decode(
          impl.encodeInfer(simpleSpec({ outputs: [{ name: 'Y' }, { name: 'Y' }] })),
          true,
        ),
        impl.wireId(1),
        'DUPLICATE_TENSOR',
        "output 'Y' already exists in request",
      );
    },
  },
  {
    id: 'refuse.too-many-tensors',
    title: 'refuses more than 1024 inputs or outputs',
    run(impl) {
      const names = Array.from({ length: 1025 }, (_, i) => `t${i}`);
      assertRefused(
        impl.codec.decode(impl.encodeInfer(simpleSpec({ inputs: names.map(tensor) })), true),
        impl.wireId(1),
        'TOO_MANY_TENSORS',
        'a request may name at most 1024 inputs, got 1025',
      );
      assertRefused(
        impl.codec.decode(
          impl.encodeInfer(simpleSpec({ outputs: names.map((name) => ({ name })) })),
          true,
        ),
        impl.wireId(1),
        'TOO_MANY_TENSORS',
        'a request may name at most 1024 outputs, got 1025',
      );
    },
  },
  {
    id: 'refuse.reserved-parameter',
    title: "refuses a request parameter starting with 'triton_'",
    run(impl) {
      assertRefused(
        impl.codec.decode(impl.encodeInfer(simpleSpec({ parameters: { triton_x: 1 } })), true),
        impl.wireId(1),
        'BAD_PARAMETER',
        "request parameter 'triton_x': parameter keys starting with 'triton_' are reserved for " +
          'Triton usage and should not be specified',
      );
    },
  },
  {
    id: 'hostile.truncated',
    title: 'refuses every cut of a frame only with catalogued client errors',
    run(impl) {
      const frame = impl.encodeInfer(FULL);
      for (let n = 0; n < frame.length; n++) {
        assertClientError(impl.codec.decode(frame.slice(0, n), true), `cut at ${n}`);
      }
    },
  },
  {
    id: 'hostile.truncated-refused',
    title: 'refuses every cut of a frame',
    run(impl) {
      const frame = impl.encodeInfer(FULL);
      for (let n = 0; n < frame.length; n++) {
        assert.equal(impl.codec.decode(frame.slice(0, n), true).ok, false, `cut at ${n}`);
      }
    },
  },
  {
    id: 'hostile.damaged',
    title: 'answers damaged and random bytes only with catalogued client errors (fuzzed)',
    run(impl) {
      const frame = impl.encodeInfer(FULL);
      fc.assert(
        fc.property(
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }),
            fc.tuple(fc.nat(frame.length - 1), fc.nat(255)).map(([at, b]) => {
              const copy = Uint8Array.from(frame);
              copy[at] = b;
              return copy;
            }),
          ),
          (bytes) => assertClientError(impl.codec.decode(bytes, true), 'damaged frame'),
        ),
        { numRuns: 2000 },
      );
    },
  },
];

// Every datatype the table knows is in FULL: a new datatype is covered without editing this file.
assert.equal(FULL.inputs.length, Object.keys(DATATYPE_TABLE).length);
