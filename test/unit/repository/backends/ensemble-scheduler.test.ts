// The ensemble scheduler with a host whose steps answer only when the test says: a step starts as
// soon as its inputs exist (two branches are in flight together before either answers), tensors
// flow from step to step under their ensemble names, the first failure names its step and cancels
// the rest, and stop() waits for requests in flight.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepContext } from '../../../../src/repository/backends/ensemble/ensemble-host.js';
import { InferenceServerError } from '../../../../src/errors.js';
import type {
  DecodedRequest,
  InferenceResponse,
} from '../../../../src/protocol/inference-request.js';
import { modelSignature } from '../../../../src/repository/model-signature.js';
import type { EnsembleHost } from '../../../../src/repository/backends/ensemble/ensemble-host.js';
import { EnsembleScheduler } from '../../../../src/repository/backends/ensemble/ensemble-scheduler.js';
import { brandValidated } from '../../../../src/scheduler/validated-request.js';
import { flush, input, modelConfig } from '../../scheduler/fixtures.js';

const STEP = `max_batch_size: 4 input { name: "I" data_type: TYPE_FP32 dims: [ 2 ] } output { name: "O" data_type: TYPE_FP32 dims: [ 2 ] }`;

const ENSEMBLE = modelConfig(`name: "m" platform: "ensemble" max_batch_size: 4
input { name: "X" data_type: TYPE_FP32 dims: [ 2 ] }
output [ { name: "Z" data_type: TYPE_FP32 dims: [ 2 ] } ]
ensemble_scheduling { step [
  { model_name: "a" input_map { key: "I" value: "X" } output_map { key: "O" value: "YA" } },
  { model_name: "b" input_map { key: "I" value: "X" } output_map { key: "O" value: "YB" } },
  { model_name: "c" input_map { key: "I" value: "YA" } output_map { key: "O" value: "Z" } }
] }`);

interface Call {
  readonly model: string;
  readonly request: DecodedRequest;
  readonly signal: AbortSignal;
  answer(f: (x: number) => number): void;
  fail(e: Error): void;
}

class ManualHost implements EnsembleHost {
  readonly calls: Call[] = [];
  signature() {
    return modelSignature(modelConfig(STEP), 1);
  }
  ready(): boolean {
    return true;
  }
  infer(model: string, _v: string | undefined, request: DecodedRequest, ctx: StepContext) {
    return new Promise<InferenceResponse>((resolve, reject) => {
      const data = request.inputs[0]?.data;
      const bytes = data?.kind === 'raw' ? data.bytes : new Uint8Array(0);
      const x = new Float32Array(bytes.slice().buffer);
      this.calls.push({
        model,
        request,
        signal: ctx.signal,
        answer: (f) => {
          const y = Float32Array.from(x, f);
          resolve({
            model_name: model,
            model_version: '1',
            outputs: [
              {
                name: 'O',
                datatype: 'FP32',
                shape: [1, 2],
                data: new Uint8Array(y.buffer),
                binary: false,
              },
            ],
          });
        },
        fail: reject,
      });
    });
  }
}

const request = (values: number[], signal = new AbortController().signal) =>
  brandValidated({
    model: 'm',
    version: 1,
    batchSize: 1,
    inputs: [
      input({
        name: 'X',
        datatype: 'FP32',
        shape: [1, 2],
        bytes: new Uint8Array(Float32Array.from(values).buffer),
      }),
    ],
    outputs: [{ name: 'Z', binary: false }],
    priority: 0,
    timeoutUs: 0,
    signal,
    arrivalNs: 0,
  });

const floats = (d: Uint8Array | undefined) => [
  ...new Float32Array((d ?? new Uint8Array()).slice().buffer),
];

void describe('EnsembleScheduler', () => {
  void it('starts both branches before either answers, then the step that waits for one', async () => {
    const host = new ManualHost();
    const s = new EnsembleScheduler(ENSEMBLE, host, 1 << 20);
    const done = s.enqueue(request([1, 2]));
    await flush();
    assert.deepEqual(
      host.calls.map((c) => c.model),
      ['a', 'b'],
      'a and b are in flight together',
    );
    host.calls[0]?.answer((x) => x * 10); // a: YA = 10 X
    await flush();
    assert.deepEqual(
      host.calls.map((c) => c.model),
      ['a', 'b', 'c'],
      'c starts as soon as YA exists, while b still runs',
    );
    assert.deepEqual(
      floats((host.calls[2]?.request.inputs[0]?.data as { bytes: Uint8Array }).bytes),
      [10, 20],
    );
    assert.equal(host.calls[2]?.request.inputs[0]?.name, 'I', 'named as the step model calls it');
    host.calls[2]?.answer((x) => x + 1);
    await flush();
    assert.equal(s.inflightCount(), 1, 'b still runs: the request is not done');
    host.calls[1]?.answer((x) => x);
    const r = await done;
    assert.deepEqual(
      r.outputs.map((o) => o.name),
      ['Z'],
    );
    assert.deepEqual(floats(r.outputs[0]?.data), [11, 21]);
    assert.equal(s.inflightCount(), 0);
  });

  void it('fails with the step named and cancels the steps still running', async () => {
    const host = new ManualHost();
    const s = new EnsembleScheduler(ENSEMBLE, host, 1 << 20);
    const done = s.enqueue(request([1, 2]));
    await flush();
    host.calls[1]?.fail(new InferenceServerError('INFER_FAILED', 'boom'));
    await flush();
    assert.equal(host.calls[0]?.signal.aborted, true, "a's request is cancelled");
    host.calls[0]?.fail(new InferenceServerError('CANCELLED'));
    await assert.rejects(done, (e: unknown) => {
      assert.ok(e instanceof InferenceServerError);
      assert.equal(e.code, 'INFER_FAILED');
      assert.equal(e.message, "in ensemble 'm', step 1 (model 'b'): boom");
      return true;
    });
  });

  void it('stop waits for the requests in flight and refuses new ones', async () => {
    const host = new ManualHost();
    const s = new EnsembleScheduler(ENSEMBLE, host, 1 << 20);
    const done = s.enqueue(request([0, 0]));
    let stopped = false;
    const stop = s.stop().then(() => (stopped = true));
    await assert.rejects(s.enqueue(request([0, 0])), /shutting down/);
    await flush();
    host.calls[0]?.answer((x) => x);
    host.calls[1]?.answer((x) => x);
    await flush();
    assert.equal(stopped, false);
    host.calls[2]?.answer((x) => x);
    await done;
    await stop;
    assert.equal(stopped, true);
  });
});
