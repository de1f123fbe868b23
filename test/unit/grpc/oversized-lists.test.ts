// A ModelInferRequest with more tensors than MAX_TENSORS is counted as it is read (issue 33, defect
// 2): the decoder keeps at most MAX_TENSORS inputs and outputs and stops reading at the first one
// past the limit (raw contents past it are skipped and counted), and the codec refuses the request
// naming the list ("more than 1024": the rest was never read).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadPackageDefinition, type MethodDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { PROTO_OPTIONS } from '../../../src/grpc/grpc-protos.js';
import { decodeInferRequest } from '../../../src/grpc/infer-codec.js';
import { decodeModelInferRequest } from '../../../src/grpc/infer-request-wire.js';
import { MAX_TENSORS } from '../../../src/protocol/inference-request.js';
import { throwsCode } from '../protocol/expect-error.js';

type Method = MethodDefinition<object, object>;
const infer = (
  loadPackageDefinition(loadSync('grpc_service.proto', PROTO_OPTIONS)) as unknown as {
    inference: { GRPCInferenceService: { service: Record<string, Method> } };
  }
).inference.GRPCInferenceService.service['ModelInfer'] as Method;

const tensor = (i: number): object => ({ name: `I${i}`, datatype: 'FP32', shape: [1] });
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

void describe('oversized tensor lists on gRPC', () => {
  void it('keeps at most MAX_TENSORS inputs, reads no further, and refuses naming the list', () => {
    const bytes = infer.requestSerialize({ model_name: 'm', inputs: many(3000, tensor) });
    const msg = decodeModelInferRequest(bytes);
    assert.equal(msg.inputs.length, MAX_TENSORS);
    throwsCode(
      () => decodeInferRequest(msg),
      'TOO_MANY_TENSORS',
      'a request may name at most 1024 inputs and 1024 outputs, got more than 1024 inputs',
    );
  });

  void it('counts outputs and raw contents the same way', () => {
    const outputs = infer.requestSerialize({
      model_name: 'm',
      inputs: [tensor(0)],
      outputs: many(2000, (i) => ({ name: `O${i}` })),
    });
    const o = decodeModelInferRequest(outputs);
    assert.equal(o.outputs.length, MAX_TENSORS);
    throwsCode(
      () => decodeInferRequest(o),
      'TOO_MANY_TENSORS',
      'a request may name at most 1024 inputs and 1024 outputs, got more than 1024 outputs',
    );
    const raw = infer.requestSerialize({
      model_name: 'm',
      inputs: [tensor(0)],
      raw_input_contents: many(5000, () => Buffer.alloc(4)),
    });
    const r = decodeModelInferRequest(raw);
    assert.equal(r.raw_input_contents.length, MAX_TENSORS);
    throwsCode(
      () => decodeInferRequest(r),
      'BAD_REQUEST',
      'raw_input_contents has 5000 entries for 1 inputs: it must hold one per input, in the order of inputs',
    );
  });

  void it('never reads the bytes after the first input past the limit', () => {
    // A tag that never ends follows input 1025: a decoder that read on would throw WireError.
    const bytes = Buffer.concat([
      infer.requestSerialize({ model_name: 'm', inputs: many(MAX_TENSORS + 1, tensor) }),
      Buffer.from([0xff, 0xff, 0xff]),
    ]);
    const msg = decodeModelInferRequest(bytes);
    assert.deepEqual(msg.tensorCounts, { inputs: 1025, outputs: 0, raw: 0, cut: 'inputs' });
  });

  void it('leaves a request at the limit as proto-loader decodes it', () => {
    const bytes = infer.requestSerialize({ model_name: 'm', inputs: many(MAX_TENSORS, tensor) });
    const msg = decodeModelInferRequest(bytes);
    assert.equal(msg.inputs.length, MAX_TENSORS);
    assert.equal('tensorCounts' in msg, false);
  });
});
