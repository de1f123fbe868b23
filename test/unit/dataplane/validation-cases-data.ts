// Validation golden cases about tensor data and outputs: raw byte sizes, BYTES length prefixes,
// JSON element counts, nesting, kinds and ranges, the input size limit, and requested outputs.

import {
  json,
  raw,
  request,
  output,
  hex,
  bytesLayout,
  range16,
  ones,
  input1,
  type ValidationCase,
} from './validation-case.js';

export const DATA_CASES: readonly ValidationCase[] = [
  // Binary data: byte sizes
  {
    what: 'raw data of exactly the shape’s size, copied as is',
    model: 'types',
    request: request([raw('f16', 'FP16', [3], Uint16Array.of(0x3c00, 0xc000, 0x7e00))]),
    accepted: { batchSize: 1, inputs: [{ name: 'f16', shape: [3], bytes: '003c00c0007e' }] },
  },
  {
    what: 'raw data four bytes short',
    model: 'simple',
    request: request([raw('INPUT0', 'INT32', [1, 16], new Uint8Array(60)), input1()]),
    refused: {
      code: 'BYTE_SIZE_MISMATCH',
      message:
        "input byte size mismatch for input 'INPUT0' for model 'simple'. Expected 64, got 60",
    },
  },
  {
    what: 'raw data one byte long',
    model: 'types',
    request: request([raw('f64', 'FP64', [2], new Uint8Array(17))]),
    refused: {
      code: 'BYTE_SIZE_MISMATCH',
      message: "input byte size mismatch for input 'f64' for model 'types'. Expected 16, got 17",
    },
  },
  {
    what: 'raw BOOL is one byte per element',
    model: 'types',
    request: request([raw('bool', 'BOOL', [4], [1, 0, 1, 1])]),
    accepted: { batchSize: 1, inputs: [{ name: 'bool', shape: [4], bytes: '01000101' }] },
  },
  {
    what: 'raw data for an empty tensor',
    model: 'types',
    request: request([raw('i32', 'INT32', [0], [])]),
    accepted: { batchSize: 1, inputs: [{ name: 'i32', shape: [0], bytes: '' }] },
  },

  // Binary data: BYTES length prefixes
  {
    what: 'BYTES: length-prefixed elements, NUL-free',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('hi', [0xff]))]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 's', shape: [1, 2], bytes: hex(bytesLayout('hi', [0xff])) }],
    },
  },
  {
    what: 'BYTES: fewer elements than the shape',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('a'))]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: "expected 2 string elements for inference input 's' for model 'strings', got 1",
    },
  },
  {
    what: 'BYTES: more elements than the shape',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('a', 'b', 'c'))]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        "unexpected number of string elements 3 for inference input 's' for model 'strings', " +
        'expecting 2',
    },
  },
  {
    what: 'BYTES: a truncated length prefix',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], [...bytesLayout('a'), 5, 0])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input s: expected 2 BYTES elements for shape [1,2], but element 1 at byte 5 has an ' +
        'incomplete length prefix: expected 4 bytes, 2 remain',
    },
  },
  {
    what: 'BYTES: an element longer than the data',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 1], [10, 0, 0, 0, 0x61])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input s: expected 1 BYTES elements for shape [1,1], but element 0 at byte 0 declares ' +
        '10 bytes, more than the 1 that remain',
    },
  },
  {
    what: 'BYTES: a length prefix of 2^32-1',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 1], [0xff, 0xff, 0xff, 0xff, 0x61])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input s: expected 1 BYTES elements for shape [1,1], but element 0 at byte 0 declares ' +
        '4294967295 bytes, more than the 1 that remain',
    },
  },
  {
    what: 'BYTES: stray bytes after the last element',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], [...bytesLayout('a', 'b'), 1, 2])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input s: expected 2 BYTES elements for shape [1,2], but 2 bytes follow the 2 expected elements',
    },
  },
  {
    what: 'BYTES: a NUL inside a raw element',
    model: 'strings',
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('ok', [0x61, 0, 0x62]))]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        "input 's': BYTES element 1 contains a NUL byte, which ONNX Runtime string tensors " +
        'cannot carry (onnxruntime-node truncates the element there)',
    },
  },

  // JSON data: element counts, nesting, kinds and ranges
  {
    what: 'JSON: nested data in row-major order',
    model: 'nobatch',
    request: request([
      json(
        'x',
        'FP32',
        [2, 2],
        [
          [1.5, 2],
          [3, NaN],
        ],
      ),
    ]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'x', shape: [2, 2], bytes: hex(Float32Array.of(1.5, 2, 3, NaN)) }],
    },
  },
  {
    what: 'JSON: a bare scalar for one element',
    model: 'types',
    request: request([json('i16', 'INT16', [1], -7)]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'i16', shape: [1], bytes: hex(Int16Array.of(-7)) }],
    },
  },
  {
    // Triton's words (http_server.cc), checked before the model's inputs: test.sh matches them
    // with INPUT1 missing.
    what: 'JSON: one element short',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16().slice(1))]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: "Failed to parse 'data' field: shape does not match true shape",
    },
  },
  {
    what: 'JSON: elements past the shape',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], [...range16(), 17, 18])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: "Unable to parse 'data': Shape does not match true shape of 'data' field",
    },
  },
  {
    what: 'JSON: ragged nesting',
    model: 'nobatch',
    request: request([json('x', 'FP32', [2, 2], [[1, 2], [3]])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input x: data is ragged: at nesting depth 1 expected an array of 2 elements, got an array of 1',
    },
  },
  {
    what: 'JSON: an object where data belongs',
    model: 'types',
    request: request([json('f32', 'FP32', [2], { a: 1 })]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: "Failed to parse 'data' field: shape does not match true shape",
    },
  },
  {
    what: 'JSON: every integer type at the ends of its range',
    model: 'types',
    request: request([
      json('u8', 'UINT8', [2], [0, 255]),
      json('u16', 'UINT16', [2], [0, 65535]),
      json('u32', 'UINT32', [2], [0, 4294967295]),
      json('u64', 'UINT64', [2], [0, Number.MAX_SAFE_INTEGER]),
      json('i8', 'INT8', [2], [-128, 127]),
      json('i16', 'INT16', [2], [-32768, 32767]),
      json('i32', 'INT32', [2], [-2147483648, 2147483647]),
      json('i64', 'INT64', [2], [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]),
    ]),
    accepted: {
      batchSize: 1,
      inputs: [
        { name: 'u8', shape: [2], bytes: hex(Uint8Array.of(0, 255)) },
        { name: 'u16', shape: [2], bytes: hex(Uint16Array.of(0, 65535)) },
        { name: 'u32', shape: [2], bytes: hex(Uint32Array.of(0, 4294967295)) },
        { name: 'u64', shape: [2], bytes: hex(BigUint64Array.of(0n, 2n ** 53n - 1n)) },
        { name: 'i8', shape: [2], bytes: hex(Int8Array.of(-128, 127)) },
        { name: 'i16', shape: [2], bytes: hex(Int16Array.of(-32768, 32767)) },
        { name: 'i32', shape: [2], bytes: hex(Int32Array.of(-2147483648, 2147483647)) },
        {
          name: 'i64',
          shape: [2],
          bytes: hex(BigInt64Array.of(-(2n ** 53n - 1n), 2n ** 53n - 1n)),
        },
      ],
      outputs: [['out', false]],
    },
  },
  {
    what: 'JSON: BOOL, FP16 and FP64 elements',
    model: 'types',
    request: request([
      json('bool', 'BOOL', [2], [true, false]),
      json('f16', 'FP16', [2], [1, -2]),
      json('f64', 'FP64', [2], [0.1, -Infinity]),
    ]),
    accepted: {
      batchSize: 1,
      inputs: [
        { name: 'bool', shape: [2], bytes: '0100' },
        { name: 'f16', shape: [2], bytes: hex(Uint16Array.of(0x3c00, 0xc000)) },
        { name: 'f64', shape: [2], bytes: hex(Float64Array.of(0.1, -Infinity)) },
      ],
    },
  },
  {
    what: 'JSON: BYTES strings as UTF-8 in the length-prefixed layout',
    model: 'strings',
    request: request([json('s', 'BYTES', [1, 2], [['h\u00e9', '']])]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 's', shape: [1, 2], bytes: hex(bytesLayout('h\u00e9', '')) }],
    },
  },
  {
    what: 'JSON: a BYTES element that is not a string',
    model: 'strings',
    request: request([json('s', 'BYTES', [1, 2], ['a', 5])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: 'input s: element 1 is 5, expected a string for BYTES',
    },
  },
  {
    what: 'JSON: a NUL inside a BYTES string',
    model: 'strings',
    request: request([json('s', 'BYTES', [1, 1], ['a\u0000b'])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        "input 's': BYTES element 0 contains a NUL byte, which ONNX Runtime string tensors " +
        'cannot carry (onnxruntime-node truncates the element there)',
    },
  },
  {
    what: 'JSON: a NUL inside a BYTES string, for a JavaScript model, which can carry it',
    model: 'jsstrings',
    request: request([json('s', 'BYTES', [1, 1], ['a\u0000b'])]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 's', shape: [1, 1], bytes: '03000000610062' }],
      outputs: [['out', false]],
    },
  },
  {
    what: 'raw: a NUL inside a BYTES element, for a JavaScript model',
    model: 'jsstrings',
    request: request([raw('s', 'BYTES', [1, 1], bytesLayout([0x61, 0, 0x62]))]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 's', shape: [1, 1], bytes: '03000000610062' }],
      outputs: [['out', false]],
    },
  },
  {
    what: 'JSON: UINT8 300',
    model: 'types',
    request: request([json('u8', 'UINT8', [2], [1, 300])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: 'input u8: element 1 is 300, expected an integer in [0, 255] for UINT8',
    },
  },
  {
    what: 'JSON: INT8 -129',
    model: 'types',
    request: request([json('i8', 'INT8', [1], [-129])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: 'input i8: element 0 is -129, expected an integer in [-128, 127] for INT8',
    },
  },
  {
    what: 'JSON: a fraction for INT32',
    model: 'types',
    request: request([json('i32', 'INT32', [1], [0.5])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input i32: element 0 is 0.5, expected an integer in [-2147483648, 2147483647] for INT32',
    },
  },
  {
    what: 'JSON: INT64 past 2^53',
    model: 'types',
    request: request([json('i64', 'INT64', [1], [2 ** 53])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input i64: element 0 is 9007199254740992, expected a safe integer in ' +
        '[-9007199254740991, 9007199254740991] for INT64',
    },
  },
  {
    what: 'JSON: UINT64 -1',
    model: 'types',
    request: request([json('u64', 'UINT64', [1], [-1])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        'input u64: element 0 is -1, expected a safe integer in [0, 9007199254740991] for UINT64',
    },
  },
  {
    what: 'JSON: 1 for BOOL',
    model: 'types',
    request: request([json('bool', 'BOOL', [1], [1])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: 'input bool: element 0 is 1, expected true or false for BOOL',
    },
  },
  {
    what: 'JSON: a string for FP32',
    model: 'types',
    request: request([json('f32', 'FP32', [2], [1, '2'])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message: 'input f32: element 1 is the string "2", expected a number for FP32',
    },
  },

  // int64 overflow, in Triton's words (http_test.py test_buffer_size_overflow)
  {
    what: 'a shape whose element count overflows int64',
    model: 'nobatch',
    request: request([json('x', 'FP32', [2 ** 4, 2 ** 60], [1])]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "invalid shape for input 'x': shape [16,1152921504606846976] causes total element count " +
        'to exceed maximum size of 9223372036854775807',
    },
  },
  {
    what: 'a shape whose byte size overflows int64',
    model: 'nobatch',
    request: request([json('x', 'FP32', [2 ** 2, 2 ** 60], [1])]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "byte size overflow for input 'x': element count (4611686018427387904) * data type size " +
        '(4) exceeds maximum allowed size (9223372036854775807)',
    },
  },

  // The input size limit
  {
    what: 'a shape whose element count alone exceeds the limit',
    model: 'nobatch',
    maxInputBytes: 1 << 20,
    request: request([json('x', 'FP32', [2, 2 ** 40], [])]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "input 'x' with shape [2,1099511627776] FP32 needs more than 1048576 bytes, the space " +
        'left under the input size limit (--http-max-input-size)',
    },
  },
  {
    what: 'the second input over what the first left',
    model: 'simple',
    maxInputBytes: 1000,
    request: request([
      raw('INPUT0', 'INT32', [8, 16], new Uint8Array(512)),
      raw('INPUT1', 'INT32', [8, 16], new Uint8Array(512)),
    ]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "input 'INPUT1' with shape [8,16] INT32 needs more than 488 bytes, the space left under " +
        'the input size limit (--http-max-input-size)',
    },
  },
  {
    what: 'JSON BYTES strings longer than the limit',
    model: 'strings',
    maxInputBytes: 100,
    request: request([json('s', 'BYTES', [1, 2], ['x'.repeat(100), 'y'])]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        "input 's' needs 109 bytes, more than the 100 left under the input size limit (--http-max-input-size)",
    },
  },
  {
    what: 'raw BYTES data longer than the limit',
    model: 'strings',
    maxInputBytes: 100,
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('x'.repeat(100), 'y'))]),
    refused: {
      code: 'BAD_TENSOR_DATA',
      message:
        "input 's' needs 109 bytes, more than the 100 left under the input size limit (--http-max-input-size)",
    },
  },
  {
    what: 'raw BYTES data that fills the limit exactly',
    model: 'strings',
    maxInputBytes: 9,
    request: request([raw('s', 'BYTES', [1, 2], bytesLayout('x', ''))]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 's', shape: [1, 2], bytes: hex(bytesLayout('x', '')) }],
    },
  },
  {
    what: 'inputs that fill the limit exactly',
    model: 'simple',
    maxInputBytes: 1024,
    request: request([
      raw('INPUT0', 'INT32', [8, 16], new Uint8Array(512)),
      raw('INPUT1', 'INT32', [8, 16], new Uint8Array(512)),
    ]),
    accepted: {
      batchSize: 8,
      inputs: [
        { name: 'INPUT0', shape: [8, 16], bytes: '00'.repeat(512) },
        { name: 'INPUT1', shape: [8, 16], bytes: '00'.repeat(512) },
      ],
    },
  },

  // Requested outputs
  {
    what: 'outputs: binary_data_output makes every output binary',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      parameters: { binary_data_output: true },
    }),
    accepted: {
      batchSize: 1,
      inputs: [
        { name: 'INPUT0', shape: [1, 16], bytes: hex(Int32Array.from(range16())) },
        { name: 'INPUT1', shape: [1, 16], bytes: hex(Int32Array.from(ones(16))) },
      ],
      outputs: [
        ['OUTPUT0', true],
        ['OUTPUT1', true],
      ],
    },
  },
  {
    what: 'outputs: the ones named, in the order named, each with its own binary_data (binary_data_output is for the unnamed)',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      parameters: { binary_data_output: true },
      outputs: [output('OUTPUT1', { binary_data: true }), output('OUTPUT0')],
    }),
    accepted: {
      batchSize: 1,
      inputs: [
        { name: 'INPUT0', shape: [1, 16], bytes: hex(Int32Array.from(range16())) },
        { name: 'INPUT1', shape: [1, 16], bytes: hex(Int32Array.from(ones(16))) },
      ],
      outputs: [
        ['OUTPUT1', true],
        ['OUTPUT0', false],
      ],
    },
  },
  {
    what: 'outputs: an empty list means every output',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], { outputs: [] }),
    accepted: {
      batchSize: 1,
      inputs: [
        { name: 'INPUT0', shape: [1, 16], bytes: hex(Int32Array.from(range16())) },
        { name: 'INPUT1', shape: [1, 16], bytes: hex(Int32Array.from(ones(16))) },
      ],
      outputs: [
        ['OUTPUT0', false],
        ['OUTPUT1', false],
      ],
    },
  },
  {
    what: 'outputs: one the model does not have',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      outputs: [output('OUTPUT0'), output('OUTPUT9')],
    }),
    refused: {
      code: 'UNKNOWN_OUTPUT',
      message: "unexpected inference output 'OUTPUT9' for model 'simple'",
    },
  },
  {
    what: 'outputs: binary_data that is not a boolean',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      outputs: [output('OUTPUT0', { binary_data: 1 })],
    }),
    refused: { code: 'BAD_PARAMETER', message: "parameter 'binary_data' must be a boolean, got 1" },
  },
  {
    what: 'outputs: the classification extension',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      outputs: [output('OUTPUT0', { classification: 3 })],
    }),
    refused: {
      code: 'UNSUPPORTED',
      message: "output 'OUTPUT0': the classification extension is not supported",
    },
  },
];
