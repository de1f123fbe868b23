// The hand-written ModelInfer codec against protobufjs static code generated from the same protos
// (bench/grpc-codec/generated/): both decode the same request bytes to the same object, each
// reads back what the other writes, and the committed generated code is what pbjs makes today.
// This is what keeps the codec comparison in bench/grpc-codec.ts a comparison of equals.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { adaptRequest, loadGenerated, type Generated } from '../../../bench/grpc-codec/codecs.js';
import { decodeModelInferRequest } from '../../../src/grpc/infer-request-wire.js';
import {
  encodeModelInferResponse,
  encodeModelStreamInferResponse,
} from '../../../src/grpc/infer-response-wire.js';
import type { InferParameter, ModelInferResponse } from '../../../src/grpc/infer-codec.js';
import {
  DEFAULT_OUT_DIR,
  OUT_FILE,
  generateGrpcMessages,
} from '../../../scripts/generate-grpc-messages.js';
import { REPO_ROOT } from '../../helpers/paths.js';

let g: Generated;

/**
 * A message as the generated encoders' parameter types want it: they declare int64 fields as
 * `number | Long`, and take the decimal strings infer-codec.ts uses too (protobufjs reads a string
 * through Long.fromString).
 */
const asGenerated = <T>(m: unknown): T => m as T;
type Props<K extends keyof Generated> = Parameters<Generated[K]['encode']>[0];
before(async () => {
  g = await loadGenerated();
});

/** Buffers compared by content: both decoders keep views, of different offsets. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

// ---- arbitrary messages ----------------------------------------------------------------------

const text = fc.string({ maxLength: 12, unit: 'grapheme' });
const bytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);

/** One InferParameter as both encoders take it: exactly one member set. */
const parameter: fc.Arbitrary<InferParameter> = fc.oneof(
  fc.boolean().map((v) => ({ bool_param: v })),
  int64.map((v) => ({ int64_param: v })),
  text.map((v) => ({ string_param: v })),
  fc.double({ noNaN: true }).map((v) => ({ double_param: v })),
  uint64.map((v) => ({ uint64_param: v })),
);
const parameters = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__'),
  parameter,
  { maxKeys: 3 },
);

const contents = fc.record(
  {
    bool_contents: fc.array(fc.boolean(), { maxLength: 4 }),
    int_contents: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 4 }),
    int64_contents: fc.array(int64, { maxLength: 4 }),
    uint_contents: fc.array(fc.nat({ max: 2 ** 32 - 1 }), { maxLength: 4 }),
    uint64_contents: fc.array(uint64, { maxLength: 4 }),
    fp32_contents: fc.array(fc.float({ noNaN: true }), { maxLength: 4 }),
    fp64_contents: fc.array(fc.double({ noNaN: true }), { maxLength: 4 }),
    bytes_contents: fc.array(bytes, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const request = fc.record(
  {
    model_name: text,
    model_version: text,
    id: text,
    parameters,
    inputs: fc.array(
      fc.record(
        {
          name: text,
          datatype: fc.constantFrom('FP32', 'INT64', 'BYTES', 'BOOL'),
          shape: fc.array(fc.oneof(fc.nat(), int64), { maxLength: 3 }),
          parameters,
          contents,
        },
        { requiredKeys: ['name', 'datatype', 'shape'] },
      ),
      { maxLength: 3 },
    ),
    outputs: fc.array(fc.record({ name: text, parameters }, { requiredKeys: ['name'] }), {
      maxLength: 2,
    }),
    raw_input_contents: fc.array(bytes, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

/** A response as infer-codec.ts builds it (int64 parameters as numbers, shapes as numbers). */
const safeInt = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const responseParameter: fc.Arbitrary<InferParameter> = fc.oneof(
  fc.boolean().map((v) => ({ bool_param: v })),
  safeInt.map((v) => ({ int64_param: v })),
  text.map((v) => ({ string_param: v })),
  fc.double({ noNaN: true }).map((v) => ({ double_param: v })),
);
const responseParameters = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__'),
  responseParameter,
  { maxKeys: 3 },
);
const response: fc.Arbitrary<ModelInferResponse> = fc.record({
  model_name: text,
  model_version: text,
  id: text,
  parameters: responseParameters,
  outputs: fc.array(
    fc.record({
      name: text,
      datatype: fc.constantFrom('FP32', 'INT64', 'BYTES'),
      shape: fc.array(fc.nat(), { maxLength: 3 }),
      parameters: responseParameters,
    }),
    { maxLength: 3 },
  ),
  raw_output_contents: fc.array(bytes, { maxLength: 3 }),
});

const MEMBERS = ['bool_param', 'int64_param', 'string_param', 'double_param', 'uint64_param'];

/**
 * A parameter map as `[key, member, value as text]`, sorted: comparable across codecs. The member
 * is the one named by `parameter_choice` (decoded) or the one set (as sent).
 */
function parameterList(p: Record<string, unknown> | undefined): unknown {
  return Object.entries(p ?? {})
    .map(([k, v]) => {
      const param = v as Record<string, unknown>;
      const choice =
        (param['parameter_choice'] as string | undefined) ??
        MEMBERS.find((m) => param[m] !== undefined && param[m] !== null) ??
        '';
      return [k, choice, String(param[choice])];
    })
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

/** What a ModelInferResponse says, however decoded: ints as text, tensors as byte lists. */
function responseView(r: any): unknown {
  return {
    model_name: r.model_name ?? '',
    model_version: r.model_version ?? '',
    id: r.id ?? '',
    parameters: parameterList(r.parameters),
    outputs: (r.outputs ?? []).map((o: any) => ({
      name: o.name ?? '',
      datatype: o.datatype ?? '',
      shape: (o.shape ?? []).map(String),
      parameters: parameterList(o.parameters),
    })),
    raw: (r.raw_output_contents ?? []).map((b: Uint8Array) => [...b]),
  };
}

const RUNS = { numRuns: 300 };

// ---- the checks ------------------------------------------------------------------------------

void describe('generated protobufjs code and the hand-written codec', () => {
  void it('decode every request the generated encoder writes to the same object', () => {
    fc.assert(
      fc.property(request, (m) => {
        const wire = Buffer.from(
          g.ModelInferRequest.encode(asGenerated<Props<'ModelInferRequest'>>(m)).finish(),
        );
        const hand = decodeModelInferRequest(wire);
        const generated = adaptRequest(g.ModelInferRequest.decode(wire));
        assert.deepEqual(plain(generated), plain(hand));
      }),
      RUNS,
    );
  });

  void it('keep raw_input_contents as views of the message, not copies', () => {
    const wire = Buffer.from(
      g.ModelInferRequest.encode({
        model_name: 'mlp',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784] }],
        raw_input_contents: [Buffer.alloc(3136, 7)],
      }).finish(),
    );
    assert.equal(decodeModelInferRequest(wire).raw_input_contents[0]?.buffer, wire.buffer);
    assert.equal(g.ModelInferRequest.decode(wire).raw_input_contents[0]?.buffer, wire.buffer);
  });

  void it('write responses the other reads back as sent, byte for byte the same', () => {
    fc.assert(
      fc.property(response, (r) => {
        const hand = encodeModelInferResponse(r);
        const generated = g.ModelInferResponse.encode(
          asGenerated<Props<'ModelInferResponse'>>(r),
        ).finish();
        assert.deepEqual(responseView(g.ModelInferResponse.decode(hand)), responseView(r));
        // Both write fields in number order and map entries in key order: the same bytes.
        assert.deepEqual([...hand], [...generated]);
      }),
      RUNS,
    );
  });

  void it('write the same stream answers, error or not', () => {
    fc.assert(
      fc.property(response, text, (r, error_message) => {
        const answer = { error_message, infer_response: r };
        const hand = encodeModelStreamInferResponse(answer);
        const back = g.ModelStreamInferResponse.decode(hand);
        assert.equal(back.error_message, error_message);
        assert.deepEqual(responseView(back.infer_response), responseView(r));
        assert.deepEqual(
          [...hand],
          [
            ...g.ModelStreamInferResponse.encode(
              asGenerated<Props<'ModelStreamInferResponse'>>(answer),
            ).finish(),
          ],
        );
      }),
      RUNS,
    );
  });
});

void describe('committed generated code', () => {
  void it('is what scripts/generate-grpc-messages.ts makes from the vendored protos', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'infernode-pbjs-out-'));
    try {
      generateGrpcMessages(out);
      const committed = path.join(REPO_ROOT, DEFAULT_OUT_DIR);
      assert.deepEqual(readdirSync(out).sort(), readdirSync(committed).sort());
      for (const file of readdirSync(out)) {
        assert.equal(
          readFileSync(path.join(out, file), 'utf8'),
          readFileSync(path.join(committed, file), 'utf8'),
          `${file} differs from ${OUT_FILE}'s generator: run node dist/scripts/generate-grpc-messages.js`,
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
