// Validation golden cases about the request as a whole: parameters, input names, datatypes,
// shapes and batch sizes (with and without batching), and reshape.

import {
  json,
  request,
  hex,
  range16,
  ones,
  input1,
  type ValidationCase,
} from './validation-case.js';

export const REQUEST_CASES: readonly ValidationCase[] = [
  // Request parameters
  {
    what: 'priority and timeout are carried as integers',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      parameters: { priority: 2, timeout: 1000, custom: 'kept' },
    }),
    accepted: {
      batchSize: 1,
      priority: 2,
      timeoutUs: 1000,
      inputs: [
        { name: 'INPUT0', shape: [1, 16], bytes: hex(Int32Array.from(range16())) },
        { name: 'INPUT1', shape: [1, 16], bytes: hex(Int32Array.from(ones(16))) },
      ],
    },
  },
  {
    what: 'a negative priority',
    model: 'simple',
    request: request([], { parameters: { priority: -1 } }),
    refused: {
      code: 'BAD_PARAMETER',
      message: "parameter 'priority' must be an integer >= 0, got -1",
    },
  },
  {
    what: 'a fractional timeout',
    model: 'simple',
    request: request([], { parameters: { timeout: 1.5 } }),
    refused: {
      code: 'BAD_PARAMETER',
      message: "parameter 'timeout' must be an integer >= 0, got 1.5",
    },
  },
  {
    what: 'a timeout given as a string',
    model: 'simple',
    request: request([], { parameters: { timeout: '10' } }),
    refused: {
      code: 'BAD_PARAMETER',
      message: `parameter 'timeout' must be an integer >= 0, got "10"`,
    },
  },
  {
    what: 'a sequence parameter on a model without sequence batching',
    model: 'simple',
    request: request([], { parameters: { sequence_id: 5 } }),
    refused: {
      code: 'UNSUPPORTED',
      message:
        "parameter 'sequence_id' needs sequence batching, which model 'simple' does not have",
    },
  },
  {
    what: 'a sequence request with a numeric id, starting',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])], {
      parameters: { sequence_id: 7, sequence_start: true },
    }),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'x', shape: [1, 2], bytes: '0000803f00000040' }],
      sequence: { id: 7, start: true, end: false },
    },
  },
  {
    what: 'a sequence request with a string id, ending',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])], {
      parameters: { sequence_id: 'mic-3', sequence_end: true },
    }),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'x', shape: [1, 2], bytes: '0000803f00000040' }],
      sequence: { id: 'mic-3', start: false, end: true },
    },
  },
  {
    what: 'a sequence model request without a correlation id',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])]),
    refused: {
      code: 'SEQUENCE_ID_REQUIRED',
      message:
        "inference request to model 'sequence' must specify a non-zero or non-empty correlation ID",
    },
  },
  {
    what: 'a sequence id of 0 (none, in Triton)',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])], { parameters: { sequence_id: 0 } }),
    refused: {
      code: 'SEQUENCE_ID_REQUIRED',
      message:
        "inference request to model 'sequence' must specify a non-zero or non-empty correlation ID",
    },
  },
  {
    what: 'a negative sequence id',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])], { parameters: { sequence_id: -3 } }),
    refused: {
      code: 'BAD_PARAMETER',
      message: `parameter 'sequence_id' must be an integer >= 0 (at most 9007199254740991) or a string, got -3`,
    },
  },
  {
    what: 'sequence_start that is not a boolean',
    model: 'sequence',
    request: request([json('x', 'FP32', [1, 2], [1, 2])], {
      parameters: { sequence_id: 1, sequence_start: 'yes' },
    }),
    refused: {
      code: 'BAD_PARAMETER',
      message: `parameter 'sequence_start' must be a boolean, got "yes"`,
    },
  },
  {
    what: 'a sequence request of two rows',
    model: 'sequence',
    request: request([json('x', 'FP32', [2, 2], [1, 2, 3, 4])], {
      parameters: { sequence_id: 1, sequence_start: true },
    }),
    refused: {
      code: 'BAD_BATCH_SIZE',
      message:
        "inference request to model 'sequence' must specify batch-size 1 due to requirements of sequence batcher, got batch size 2",
    },
  },
  {
    what: 'binary_data_output that is not a boolean',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1()], {
      parameters: { binary_data_output: 'yes' },
    }),
    refused: {
      code: 'BAD_PARAMETER',
      message: `parameter 'binary_data_output' must be a boolean, got "yes"`,
    },
  },

  // Input names
  {
    what: 'a missing required input',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16())]),
    refused: {
      code: 'MISSING_INPUT',
      message:
        "expected 2 inputs but got 1 inputs for model 'simple'. Got input(s) ['INPUT0'], but " +
        "missing required input(s) ['INPUT1']. Please provide all required input(s).",
    },
  },
  {
    what: 'no inputs at all',
    model: 'simple',
    request: request([]),
    refused: {
      code: 'MISSING_INPUT',
      message:
        "expected 2 inputs but got 0 inputs for model 'simple'. Got input(s) [], but missing " +
        "required input(s) ['INPUT0', 'INPUT1']. Please provide all required input(s).",
    },
  },
  {
    what: 'an input the model does not have',
    model: 'simple',
    request: request([
      json('INPUT0', 'INT32', [1, 16], range16()),
      json('INPUT2', 'INT32', [1], [1]),
      input1(),
    ]),
    refused: {
      code: 'UNKNOWN_INPUT',
      message: "unexpected inference input 'INPUT2' for model 'simple'",
    },
  },
  {
    what: 'an optional input left out',
    model: 'optional',
    request: request([json('a', 'INT64', [1], [-2])]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'a', shape: [1], bytes: hex(BigInt64Array.of(-2n)) }],
    },
  },
  {
    what: 'only the optional input',
    model: 'optional',
    request: request([json('b', 'INT64', [1], [3])]),
    refused: {
      code: 'MISSING_INPUT',
      message:
        "expected 1 inputs but got 1 inputs for model 'optional'. Got input(s) ['b'], but " +
        "missing required input(s) ['a']. Please provide all required input(s).",
    },
  },

  // Datatypes
  {
    what: 'a datatype other than the config’s',
    model: 'simple',
    request: request([json('INPUT0', 'INT16', [1, 16], range16()), input1()]),
    refused: {
      code: 'BAD_DATATYPE',
      message: "inference input 'INPUT0' data-type is 'INT16', but model 'simple' expects 'INT32'",
    },
  },
  {
    what: 'a datatype that does not exist',
    model: 'simple',
    request: request([json('INPUT0', 'FLOAT', [1, 16], range16()), input1()]),
    refused: {
      code: 'BAD_DATATYPE',
      message: `inference input 'INPUT0' has unknown datatype "FLOAT"; model 'simple' expects 'INT32'`,
    },
  },
  {
    what: 'a very long unknown datatype, quoted in part',
    model: 'simple',
    request: request([json('INPUT0', 'X'.repeat(100), [1, 16], range16()), input1()]),
    refused: {
      code: 'BAD_DATATYPE',
      message: `inference input 'INPUT0' has unknown datatype "${'X'.repeat(39)}; model 'simple' expects 'INT32'`,
    },
  },
  {
    what: 'the config type name instead of the wire name',
    model: 'strings',
    request: request([json('s', 'TYPE_STRING', [1, 1], ['a'])]),
    refused: {
      code: 'BAD_DATATYPE',
      message: `inference input 's' has unknown datatype "TYPE_STRING"; model 'strings' expects 'BYTES'`,
    },
  },

  // Shapes and batch sizes
  {
    what: 'a negative dimension',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [-1, 16], range16()), input1()]),
    refused: {
      code: 'BAD_SHAPE',
      message: "input 'INPUT0': every shape dimension must be an integer >= 0, got [-1,16]",
    },
  },
  {
    what: 'a fractional dimension',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1.5, 16], range16()), input1()]),
    refused: {
      code: 'BAD_SHAPE',
      message: "input 'INPUT0': every shape dimension must be an integer >= 0, got [1.5,16]",
    },
  },
  {
    what: 'a dimension given as a string',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', ['1', 16], range16()), input1()]),
    refused: {
      code: 'BAD_SHAPE',
      message: `input 'INPUT0': every shape dimension must be an integer >= 0, got ["1",16]`,
    },
  },
  {
    // Past 2^53 but within int64: refused by the next rule it breaks, as in Triton.
    what: 'a dimension past 2^53',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [2 ** 53, 16], range16()), input1()]),
    refused: {
      code: 'BAD_BATCH_SIZE',
      message: "inference request batch-size must be <= 8 for 'simple', got 9007199254740992",
    },
  },
  {
    what: 'a batch over max_batch_size',
    model: 'simple',
    // Data that fits the shape sent: a mismatch would be refused first, as in Triton.
    request: request([json('INPUT0', 'INT32', [9, 16], Array<number>(144).fill(1)), input1()]),
    refused: {
      code: 'BAD_BATCH_SIZE',
      message: "inference request batch-size must be <= 8 for 'simple', got 9",
    },
  },
  {
    // As in Triton: the first dim is the batch, so a shape without one reads as a batch of 16.
    what: 'a shape without its batch dimension',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [16], range16()), input1()]),
    refused: {
      code: 'BAD_BATCH_SIZE',
      message: "inference request batch-size must be <= 8 for 'simple', got 16",
    },
  },
  {
    what: 'a shape that differs from dims',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 15], range16().slice(1)), input1()]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "unexpected shape for input 'INPUT0' for model 'simple'. Expected [-1,16], got [1,15]",
    },
  },
  {
    what: 'an empty shape on a batching model',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [], [1]), input1()]),
    refused: {
      code: 'BAD_SHAPE',
      message: "unexpected shape for input 'INPUT0' for model 'simple'. Expected [-1,16], got []",
    },
  },
  {
    what: 'inputs that disagree on the batch size',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [1, 16], range16()), input1(2)]),
    refused: {
      code: 'BAD_SHAPE',
      message:
        "input 'INPUT1' has batch size 2, but earlier inputs have batch size 1: every input of " +
        'one request must have the same batch size',
    },
  },
  {
    what: 'a batch of two',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [2, 16], [range16(), range16(16)]), input1(2)]),
    accepted: {
      batchSize: 2,
      inputs: [
        {
          name: 'INPUT0',
          shape: [2, 16],
          bytes: hex(Int32Array.from([...range16(), ...range16(16)])),
        },
        { name: 'INPUT1', shape: [2, 16], bytes: hex(Int32Array.from(ones(32))) },
      ],
    },
  },
  {
    what: 'a batch of zero rows',
    model: 'simple',
    request: request([json('INPUT0', 'INT32', [0, 16], []), json('INPUT1', 'INT32', [0, 16], [])]),
    accepted: {
      batchSize: 0,
      inputs: [
        { name: 'INPUT0', shape: [0, 16], bytes: '' },
        { name: 'INPUT1', shape: [0, 16], bytes: '' },
      ],
    },
  },
  {
    what: 'max_batch_size 0: -1 matches any extent and the batch size is 1',
    model: 'nobatch',
    request: request([json('x', 'FP32', [2, 3], [1, 2, 3, 4, 5, 6])]),
    accepted: {
      batchSize: 1,
      inputs: [{ name: 'x', shape: [2, 3], bytes: hex(Float32Array.of(1, 2, 3, 4, 5, 6)) }],
    },
  },
  {
    what: 'max_batch_size 0: a fixed dim that differs',
    model: 'nobatch',
    request: request([json('x', 'FP32', [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9])]),
    refused: {
      code: 'BAD_SHAPE',
      message: "unexpected shape for input 'x' for model 'nobatch'. Expected [2,-1], got [3,3]",
    },
  },
  {
    what: 'max_batch_size 0: a leading batch dim is one dim too many',
    model: 'nobatch',
    request: request([json('x', 'FP32', [1, 2, 1], [1, 2])]),
    refused: {
      code: 'BAD_SHAPE',
      message: "unexpected shape for input 'x' for model 'nobatch'. Expected [2,-1], got [1,2,1]",
    },
  },

  // Reshape
  {
    what: 'reshape: the model gets its reshaped dims after the batch dim',
    model: 'reshape',
    request: request([
      json('x', 'FP32', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]),
      json('v', 'FP32', [2, 2, 3], range16().slice(0, 12)),
      json('one', 'FP32', [2, 1], [7, 8]),
    ]),
    accepted: {
      batchSize: 2,
      inputs: [
        {
          name: 'x',
          shape: [2, 2, 2],
          requestShape: [2, 4],
          bytes: hex(Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8)),
        },
        {
          // -1 in reshape takes what the other dims leave: 6 elements per row / 2 = 3.
          name: 'v',
          shape: [2, 2, 1, 3],
          requestShape: [2, 2, 3],
          bytes: hex(Float32Array.from(range16().slice(0, 12))),
        },
        // An empty reshape: one scalar per batch item.
        { name: 'one', shape: [2], requestShape: [2, 1], bytes: hex(Float32Array.of(7, 8)) },
      ],
    },
  },
  {
    what: 'reshape: the request is checked against dims, not reshape',
    model: 'reshape',
    request: request([
      json('x', 'FP32', [1, 2, 2], [1, 2, 3, 4]),
      json('v', 'FP32', [1, 2, 1], [1, 2]),
      json('one', 'FP32', [1, 1], [7]),
    ]),
    refused: {
      code: 'BAD_SHAPE',
      message: "unexpected shape for input 'x' for model 'reshape'. Expected [-1,4], got [1,2,2]",
    },
  },
];
