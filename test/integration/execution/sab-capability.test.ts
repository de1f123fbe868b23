// The SharedArrayBuffer-tensor probe against the real binding.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import '../../helpers/ort-telemetry-off.js';
import {
  detectSabTensors,
  resolveSabTensors,
} from '../../../src/execution/onnxruntime/sab-capability.js';

const nodeMajor = Number(process.versions.node.split('.')[0]);

void describe('SharedArrayBuffer tensor capability', () => {
  void it('probes once and answers consistently', async () => {
    const first = await detectSabTensors();
    assert.equal(typeof first, 'boolean');
    assert.equal(await detectSabTensors(), first);
    assert.equal(await resolveSabTensors('auto'), first);
  });

  void it('is "no" on Node 20 with onnxruntime-node 1.30 (the binding rejects SAB views)', async (t) => {
    if (nodeMajor !== 20) {
      t.skip(`Node ${nodeMajor}: the answer depends on the runtime`);
      return;
    }
    assert.equal(await detectSabTensors(), false);
  });

  void it('can be forced either way (tests cover both worker paths with it)', async () => {
    assert.equal(await resolveSabTensors(false), false);
    assert.equal(await resolveSabTensors(true), true);
  });
});
