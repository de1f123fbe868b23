// A ModelInferRequest with more tensors than MAX_TENSORS is counted as it is read (issue 33, defect
// 2): the decoder keeps at most MAX_TENSORS entries of each repeated tensor field and skips the
// rest, and the codec refuses the request with the words and counts it always used.

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
  void it('keeps at most MAX_TENSORS inputs and refuses with the true count', () => {
    const bytes = infer.requestSerialize({ model_name: 'm', inputs: many(3000, tensor) });
    const msg = decodeModelInferRequest(bytes);
    assert.equal(msg.inputs.length, MAX_TENSORS);
    throwsCode(
      () => decodeInferRequest(msg),
      'TOO_MANY_TENSORS',
      'a request may name at most 1024 inputs and 1024 outputs, got 3000 and 0',
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
      'a request may name at most 1024 inputs and 1024 outputs, got 1 and 2000',
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

  void it('leaves a request at the limit as proto-loader decodes it', () => {
    const bytes = infer.requestSerialize({ model_name: 'm', inputs: many(MAX_TENSORS, tensor) });
    const msg = decodeModelInferRequest(bytes);
    assert.equal(msg.inputs.length, MAX_TENSORS);
    assert.equal('tensorCounts' in msg, false);
  });
});
