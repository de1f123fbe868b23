// The hand-encoded probe model decodes, with onnx-proto, to the Identity graph it claims to be.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import onnxProto from 'onnx-proto';
import {
  identityProbeModel,
  PROBE_INPUT,
  PROBE_OUTPUT,
} from '../../../src/execution/onnxruntime/probe-model.js';

void describe('identityProbeModel', () => {
  void it('is a valid ModelProto: IR 8, opset 13, y = Identity(x) over float32 [N]', () => {
    const bytes = identityProbeModel();
    assert.ok(bytes.byteLength < 100, `expected a tiny model, got ${bytes.byteLength} bytes`);
    const model = onnxProto.onnx.ModelProto.decode(bytes);
    assert.equal(Number(model.irVersion), 8);
    assert.equal(Number(model.opsetImport[0]?.version), 13);
    const graph = model.graph;
    assert.ok(graph);
    assert.deepEqual(
      (graph.node ?? []).map((n) => [n.opType, n.input, n.output]),
      [['Identity', [PROBE_INPUT], [PROBE_OUTPUT]]],
    );
    for (const v of [graph.input?.[0], graph.output?.[0]]) {
      const t = v?.type?.tensorType;
      assert.equal(t?.elemType, onnxProto.onnx.TensorProto.DataType.FLOAT);
      assert.deepEqual(
        t?.shape?.dim?.map((d) => d.dimParam),
        ['N'],
      );
    }
  });
});
