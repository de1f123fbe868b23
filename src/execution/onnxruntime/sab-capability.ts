// Whether the installed onnxruntime-node accepts tensors whose data is a SharedArrayBuffer view.
// On Node 20 with onnxruntime-node 1.30 session.run rejects them ("Invalid argument"), so workers
// must copy inputs into worker-local memory first; where they are accepted, workers wrap the
// shared memory directly and skip the copy. Probed once per process, in the main thread.

import { InferenceSession, Tensor } from 'onnxruntime-node';
import { identityProbeModel, PROBE_INPUT, PROBE_OUTPUT } from './probe-model.js';

let probe: Promise<boolean> | undefined;

async function runProbe(): Promise<boolean> {
  const session = await InferenceSession.create(identityProbeModel(), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  try {
    const shared = new Float32Array(new SharedArrayBuffer(3 * 4));
    shared.set([1.5, -2, 3.25]);
    const out = await session.run({ [PROBE_INPUT]: new Tensor('float32', shared, [3]) });
    const y = out[PROBE_OUTPUT]?.data;
    // Accepted and read correctly: the only outcome that lets workers skip the copy.
    return y instanceof Float32Array && y.length === 3 && y[0] === 1.5 && y[2] === 3.25;
  } catch {
    // The binding's rejection ("Invalid argument") is the expected "no" on Node 20.
    return false;
  } finally {
    await session.release();
  }
}

/** Probes once per process; later calls share the first answer. */
export function detectSabTensors(): Promise<boolean> {
  probe ??= runProbe();
  return probe;
}

/**
 * What workers should do: `'auto'` probes; `false` forces the copy path (tests use it to cover both
 * paths on a runtime that supports direct wrapping); `true` forces direct wrapping even where the
 * probe says no, so a test can show what the binding does with it.
 */
export async function resolveSabTensors(option: boolean | 'auto' = 'auto'): Promise<boolean> {
  return option === 'auto' ? detectSabTensors() : option;
}
