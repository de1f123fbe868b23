// Scrubbing worker error messages: no file-system path reaches a client. The inputs are the real ORT
// 1.30 messages seen for a truncated model, a missing file, a global-thread-pool session and a
// Reshape that fails at run time.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fail } from '../../../src/errors.js';
import { scrubMessage, toWireError } from '../../../src/execution/worker-errors.js';

const MODEL = '/srv/models/simple/1/model.onnx';
const SHOWN = 'simple/1/model.onnx';

void describe('scrubMessage', () => {
  void it('replaces the model path with its repository-relative form', () => {
    assert.equal(
      scrubMessage(`Load model from ${MODEL} failed:Protobuf parsing failed.`, MODEL, SHOWN),
      'Load model from simple/1/model.onnx failed:Protobuf parsing failed.',
    );
  });

  void it('replaces any other absolute path with <path>', () => {
    assert.equal(
      scrubMessage('Failed to load library /usr/lib/x/libfoo.so with error', MODEL, SHOWN),
      'Failed to load library <path> with error',
    );
    assert.equal(
      scrubMessage('cannot open C:\\models\\a\\m.onnx', MODEL, SHOWN),
      'cannot open <path>',
    );
  });

  void it('drops ORT’s source-location prefix', () => {
    const raw =
      '/onnxruntime_src/onnxruntime/core/session/inference_session.cc:663 void ' +
      'onnxruntime::InferenceSession::ConstructorCommon(const onnxruntime::SessionOptions&, ' +
      'const onnxruntime::Environment&) session_env.EnvCreatedWithGlobalThreadPools() was false.';
    assert.equal(
      scrubMessage(raw, MODEL, SHOWN),
      'session_env.EnvCreatedWithGlobalThreadPools() was false.',
    );
  });

  void it('drops the source-location prefix of a kernel that failed inside session.run', () => {
    const raw =
      "Non-zero status code returned while running Reshape node. Name:'reshape' Status Message: " +
      '/onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:91 ' +
      'onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, ' +
      'onnxruntime::TensorShapeVector&, bool) input_shape_size == requested_shape_size was false. ' +
      'The input tensor cannot be reshaped to the requested shape. Input shape:{1,4}, requested ' +
      'shape:{1,8}';
    assert.equal(
      scrubMessage(raw, MODEL, SHOWN),
      "Non-zero status code returned while running Reshape node. Name:'reshape' Status Message: " +
        'input_shape_size == requested_shape_size was false. The input tensor cannot be reshaped ' +
        'to the requested shape. Input shape:{1,4}, requested shape:{1,8}',
    );
  });

  void it('leaves ordinary slashes in sentences alone', () => {
    const msg =
      'Invalid rank for input: x Got: 2 Expected: 1 Please fix either the inputs/outputs or the model.';
    assert.equal(scrubMessage(msg, MODEL, SHOWN), msg);
  });
});

void describe('toWireError', () => {
  const ctx = { modelPath: MODEL, displayPath: SHOWN };
  void it('keeps a catalogued error’s code and scrubs its message', () => {
    assert.deepEqual(toWireError(fail('BAD_SHAPE', `bad ${MODEL}`), 'INFER_FAILED', ctx), {
      code: 'BAD_SHAPE',
      message: `bad ${SHOWN}`,
    });
  });
  void it('gives anything else the fallback code', () => {
    assert.deepEqual(toWireError(new TypeError('Invalid argument'), 'INFER_FAILED', ctx), {
      code: 'INFER_FAILED',
      message: 'Invalid argument',
    });
    assert.deepEqual(toWireError('boom', 'INTERNAL', ctx), { code: 'INTERNAL', message: 'boom' });
  });
});
