// Model compute alone, no server and no pacing: mean `session.run` time of the wrapped model
// (the one infernode serves) at several batch sizes, and of the package's original model at
// batch 1. Per-row cost at batch 64 against batch 1 says how much batching can buy at most.

import ort from 'onnxruntime-node';
import {
  SILERO_CHUNK_SAMPLES as CHUNK,
  SILERO_CONTEXT_SAMPLES as CONTEXT,
  SILERO_SAMPLE_RATE,
  SILERO_STATE_DIMS,
  sileroSourceModelPath,
} from '../../scripts/onnx/silero-vad-wrapper.js';
import type { ComputeOrder, ComputeRow } from './stream-messages.js';

const STATE_SIZE = SILERO_STATE_DIMS[0] * SILERO_STATE_DIMS[1];

async function timeRuns(run: () => Promise<unknown>, runs: number): Promise<number> {
  for (let i = 0; i < 5; i += 1) await run();
  const t = performance.now();
  for (let i = 0; i < runs; i += 1) await run();
  return (performance.now() - t) / runs;
}

function random(n: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i += 1) a[i] = (Math.random() - 0.5) * 0.2;
  return a;
}

export async function modelCompute(order: ComputeOrder): Promise<ComputeRow[]> {
  // Default session options (log level aside), as the naive loop's session has.
  const wrapped = await ort.InferenceSession.create(order.wrappedModel, { logSeverityLevel: 3 });
  const rows: ComputeRow[] = [];
  for (const batch of order.batchSizes) {
    const feeds = {
      audio: new ort.Tensor('float32', random(batch * CHUNK), [batch, CHUNK]),
      state: new ort.Tensor('float32', new Float32Array(batch * STATE_SIZE), [
        batch,
        ...SILERO_STATE_DIMS,
      ]),
      context: new ort.Tensor('float32', random(batch * CONTEXT), [batch, CONTEXT]),
    };
    const ms = await timeRuns(() => wrapped.run(feeds), order.runs);
    rows.push({ model: 'wrapped', batch, msPerRun: ms, usPerRow: (ms * 1000) / batch });
  }
  const original = await ort.InferenceSession.create(sileroSourceModelPath(), {
    logSeverityLevel: 3,
  });
  const feeds = {
    input: new ort.Tensor('float32', random(CONTEXT + CHUNK), [1, CONTEXT + CHUNK]),
    sr: new ort.Tensor('int64', BigInt64Array.of(BigInt(SILERO_SAMPLE_RATE)), []),
    state: new ort.Tensor('float32', new Float32Array(STATE_SIZE), [
      SILERO_STATE_DIMS[0],
      1,
      SILERO_STATE_DIMS[1],
    ]),
  };
  const ms = await timeRuns(() => original.run(feeds), order.runs);
  rows.push({ model: 'original', batch: 1, msPerRun: ms, usPerRow: ms * 1000 });
  return rows;
}
