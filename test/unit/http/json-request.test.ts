// JSON request decoding: the nesting pre-scan, NaN/Infinity tokens, and the envelope checks.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJsonRequest } from '../../../src/http/json-request.js';
import { MAX_TENSORS } from '../../../src/protocol/inference-request.js';
import { parseJsonBytes } from '../../../src/http/json-text.js';
import { jsonBytes, throwsCode, utf8 } from '../protocol/expect-error.js';

const input = (name = 'INPUT0', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  datatype: 'FP32',
  shape: [1],
  data: [1],
  ...extra,
});

/** A request whose total bracket depth is exactly `depth` (object, inputs, input, data, ...). */
function requestOfDepth(depth: number): string {
  const data = '['.repeat(depth - 3) + '1' + ']'.repeat(depth - 3);
  return `{"inputs":[{"name":"a","datatype":"FP32","shape":[1],"data":${data}}]}`;
}

const TOO_DEEP = 'JSON nesting depth exceeds maximum allowed limit (100)';

void describe('JSON nesting limit', () => {
  void it('accepts depth 100', () => {
    const req = decodeJsonRequest(utf8(requestOfDepth(100)));
    assert.equal(req.inputs[0]?.name, 'a');
  });

  void it('refuses depth 101', () => {
    throwsCode(() => decodeJsonRequest(utf8(requestOfDepth(101))), 'JSON_TOO_DEEP', TOO_DEEP);
  });

  void it('refuses 10,000 levels before parsing anything (the rest of the body is not even JSON)', () => {
    const body = utf8('['.repeat(10_000) + 'this is not json');
    throwsCode(() => decodeJsonRequest(body), 'JSON_TOO_DEEP', TOO_DEEP);
  });

  void it('does not count brackets inside strings, including after escaped quotes', () => {
    const name = `${'['.repeat(200)}\\"${'{'.repeat(200)}`;
    const req = decodeJsonRequest(
      utf8(`{"inputs":[{"name":"${name}","datatype":"BYTES","shape":[1],"data":["\\\\"]}]}`),
    );
    assert.equal(req.inputs[0]?.name, `${'['.repeat(200)}"${'{'.repeat(200)}`);
  });
});

void describe('JSON text', () => {
  void it('reads NaN, Infinity, -Infinity (and rapidjson Inf) tokens as numbers, not inside strings', () => {
    const v = parseJsonBytes(
      utf8('{"a":[NaN,-NaN,Infinity,-Infinity,Inf,-Inf,"NaN","x Infinity"]}'),
    );
    assert.deepEqual(v, {
      a: [NaN, NaN, Infinity, -Infinity, Infinity, -Infinity, 'NaN', 'x Infinity'],
    });
  });

  void it('reports malformed JSON as BAD_JSON with the parser message', () => {
    throwsCode(
      () => decodeJsonRequest(utf8('{"inputs": [')),
      'BAD_JSON',
      /^failed to parse the request JSON: /,
    );
    throwsCode(() => decodeJsonRequest(new Uint8Array(0)), 'BAD_JSON');
    throwsCode(() => decodeJsonRequest(utf8('[NaNa]')), 'BAD_JSON');
  });
});

void describe('request envelope', () => {
  void it('decodes id, parameters, inputs and outputs', () => {
    // Small bodies are parsed whole: their data arrays come out as JSON values.
    const jsonOne = { kind: 'json', values: [1] };
    // Scanned bodies (large ones; here forced) come out already typed (json-body-scan.ts).
    const typedOne = {
      kind: 'typed',
      datatype: 'FP32',
      count: 1,
      bytes: new Uint8Array(new Float32Array([1]).buffer),
    };
    const body = jsonBytes({
      id: 'r1',
      parameters: { priority: 1, binary_data_output: true, note: 'x' },
      inputs: [input('A', { parameters: { p: 'q' } }), input('B')],
      outputs: [{ name: 'O', parameters: { binary_data: false } }, { name: 'P' }],
    });
    const scanned = decodeJsonRequest(body, 0);
    const req = decodeJsonRequest(body);
    assert.equal(req.id, 'r1');
    assert.deepEqual({ ...req.parameters }, { priority: 1, binary_data_output: true, note: 'x' });
    for (const [r, data] of [
      [req, jsonOne],
      [scanned, typedOne],
    ] as const) {
      assert.deepEqual(
        r.inputs.map((i) => [i.name, i.datatype, i.shape, { ...i.parameters }, i.data]),
        [
          ['A', 'FP32', [1], { p: 'q' }, data],
          ['B', 'FP32', [1], {}, data],
        ],
      );
    }
    assert.deepEqual(
      req.outputs?.map((o) => [o.name, { ...o.parameters }]),
      [
        ['O', { binary_data: false }],
        ['P', {}],
      ],
    );
    assert.ok(Object.isFrozen(req.parameters));
  });

  void it('leaves out id and outputs when absent', () => {
    const req = decodeJsonRequest(jsonBytes({ inputs: [input()] }));
    assert.equal(Object.hasOwn(req, 'id'), false);
    assert.equal(req.outputs, undefined);
  });

  void it('requires a non-empty inputs array', () => {
    throwsCode(
      () => decodeJsonRequest(jsonBytes({})),
      'BAD_REQUEST',
      "expected a non-empty 'inputs' array, got none",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs: [] })),
      'BAD_REQUEST',
      "expected a non-empty 'inputs' array, got an empty array",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs: {} })),
      'BAD_REQUEST',
      "expected 'inputs' to be an array, got an object",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes([1])),
      'BAD_REQUEST',
      'expected the request to be a JSON object, got an array',
    );
  });

  void it('checks the members of each input', () => {
    const bad =
      (i: unknown): (() => unknown) =>
      () =>
        decodeJsonRequest(jsonBytes({ inputs: [i] }));
    throwsCode(bad(5), 'BAD_REQUEST', 'expected inputs[0] to be an object, got the number 5');
    throwsCode(
      bad({ ...input(), name: 1 }),
      'BAD_REQUEST',
      'expected inputs[0].name to be a string, got the number 1',
    );
    throwsCode(
      bad(input('X', { datatype: null })),
      'BAD_REQUEST',
      "input X: expected 'datatype' to be a string, got null",
    );
    throwsCode(
      bad(input('X', { shape: '1' })),
      'BAD_REQUEST',
      "input X: expected 'shape' to be an array, got a string",
    );
    const noData = input('X');
    delete noData['data'];
    throwsCode(
      bad(noData),
      'BAD_REQUEST',
      "input X: expected 'data', parameters.binary_data_size or parameters.shared_memory_region, got none",
    );
    throwsCode(
      bad({ ...noData, parameters: { shared_memory_region: 'r' } }),
      'BAD_PARAMETER',
      "'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter " +
        "for tensor 'X'",
    );
    throwsCode(
      bad({ ...input('X'), parameters: { shared_memory_region: 'r', shared_memory_byte_size: 4 } }),
      'BAD_REQUEST',
      "input X: expected no 'data' with parameters.shared_memory_region (the tensor is in " +
        'shared memory), got both',
    );
  });

  void it('checks parameter values and reserves triton_ keys at request level', () => {
    throwsCode(
      () =>
        decodeJsonRequest(jsonBytes({ parameters: { triton_enable_x: true }, inputs: [input()] })),
      'BAD_PARAMETER',
      "request parameter 'triton_enable_x': parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ parameters: { a: [1] }, inputs: [input()] })),
      'BAD_PARAMETER',
      "request parameter 'a' must be a string, number or boolean, got an array",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs: [input('X', { parameters: { a: null } })] })),
      'BAD_PARAMETER',
      "input X parameter 'a' must be a string, number or boolean, got null",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ parameters: 'x', inputs: [input()] })),
      'BAD_PARAMETER',
      "request 'parameters' must be an object, got a string",
    );
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ id: 7, inputs: [input()] })),
      'BAD_REQUEST',
      "expected 'id' to be a string, got the number 7",
    );
  });

  void it('refuses duplicate input and output names', () => {
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs: [input('A'), input('A')] })),
      'DUPLICATE_TENSOR',
      "input 'A' already exists in request",
    );
    throwsCode(
      () =>
        decodeJsonRequest(
          jsonBytes({ inputs: [input()], outputs: [{ name: 'O' }, { name: 'O' }] }),
        ),
      'DUPLICATE_TENSOR',
      "output 'O' already exists in request",
    );
  });

  void it('refuses more than 1024 inputs or outputs before reading any of them', () => {
    assert.equal(MAX_TENSORS, 1024);
    // 100,000 outputs, all with the same (duplicate) name and a malformed one first: the count
    // check fires before duplicate or member checks would.
    const outputs = [{ name: 5 }, ...Array.from({ length: 99_999 }, () => ({ name: 'O' }))];
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs: [input()], outputs })),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 outputs; at most 1024 are accepted',
    );
    const inputs = Array.from({ length: 1025 }, (_, i) => input(`I${i}`));
    throwsCode(
      () => decodeJsonRequest(jsonBytes({ inputs })),
      'TOO_MANY_TENSORS',
      'the request lists 1025 inputs; at most 1024 are accepted',
    );
    const ok = Array.from({ length: 1024 }, (_, i) => ({ name: `O${i}` }));
    assert.equal(
      decodeJsonRequest(jsonBytes({ inputs: [input()], outputs: ok })).outputs?.length,
      1024,
    );
  });

  void it('reads only own properties: __proto__ and constructor keys are plain data', () => {
    const body = utf8(
      '{"__proto__":{"inputs":[1],"polluted":0},"inputs":[{"name":"a","datatype":"FP32","shape":[1],' +
        '"data":[{"__proto__":{"polluted":1}}],"parameters":{"__proto__":1,"constructor":"c"}}],' +
        '"parameters":{"__proto__":true},"outputs":[{"name":"o","parameters":{"__proto__":"x"}}]}',
    );
    const req = decodeJsonRequest(body);
    const params = req.inputs[0]?.parameters ?? {};
    assert.equal(Object.getPrototypeOf(params), null);
    assert.deepEqual(Object.keys(params), ['__proto__', 'constructor']);
    assert.equal(params['__proto__'], 1);
    assert.equal(Object.getPrototypeOf(req.parameters), null);
    assert.equal(req.parameters['__proto__'], true);
    assert.equal(req.outputs?.[0]?.parameters['__proto__'], 'x');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  void it('carries sequence parameters and refuses an id JSON.parse would round', () => {
    const req = (parameters: string) =>
      decodeJsonRequest(
        utf8(
          `{"parameters":${parameters},"inputs":[{"name":"a","datatype":"FP32","shape":[1],"data":[1]}]}`,
        ),
      );
    assert.deepEqual(
      { ...req('{"sequence_id":42,"sequence_start":true,"sequence_end":false}').parameters },
      { sequence_id: 42, sequence_start: true, sequence_end: false },
    );
    assert.deepEqual({ ...req('{"sequence_id":"user-7"}').parameters }, { sequence_id: 'user-7' });
    assert.equal(req('{"sequence_id":9007199254740991}').parameters['sequence_id'], 2 ** 53 - 1);
    // 2^53 + 1 parses to 2^53 and 2^64 - 1 to 18446744073709552000: neither is carried.
    for (const [sent, parsed] of [
      ['9007199254740993', '9007199254740992'],
      ['18446744073709551615', '18446744073709552000'],
    ]) {
      throwsCode(
        () => req(`{"sequence_id":${sent}}`),
        'BAD_PARAMETER',
        "request parameter 'sequence_id' must be at most 2^53-1 (9007199254740991), the largest " +
          `integer id carried exactly; use a smaller id or a string id, got the number ${parsed} ` +
          '(rounded, if more digits were sent)',
      );
    }
    throwsCode(
      () => req('{"sequence_id":-1}'),
      'BAD_PARAMETER',
      "request parameter 'sequence_id' must be an integer >= 0 or a string, got the number -1",
    );
    throwsCode(
      () => req('{"sequence_id":1.5}'),
      'BAD_PARAMETER',
      "request parameter 'sequence_id' must be an integer >= 0 or a string, got the number 1.5",
    );
    throwsCode(
      () => req('{"sequence_start":"yes"}'),
      'BAD_PARAMETER',
      "request parameter 'sequence_start' must be a boolean, got a string",
    );
    throwsCode(
      () => req('{"sequence_end":1}'),
      'BAD_PARAMETER',
      "request parameter 'sequence_end' must be a boolean, got the number 1",
    );
  });
});
