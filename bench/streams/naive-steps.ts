// The baseline a Node developer writes first: one onnxruntime-node InferenceSession of the
// package's ORIGINAL Silero model (silero_vad_op18_ifless.onnx, batch 1, default session options)
// in the same process as the streams, each stream's state and 64-sample context carried by hand
// (as test/helpers/silero-reference.ts `runOriginal` does), and one `session.run` at a time: the
// steps of all streams queue for the one session in arrival order.

import ort from 'onnxruntime-node';
import {
  SILERO_CHUNK_SAMPLES as CHUNK,
  SILERO_CONTEXT_SAMPLES as CONTEXT,
  SILERO_SAMPLE_RATE,
  SILERO_STATE_DIMS,
  sileroSourceModelPath,
} from '../../scripts/onnx/silero-vad-wrapper.js';
import type { StepFunction } from './stream-pacer.js';

const STATE_SIZE = SILERO_STATE_DIMS[0] * SILERO_STATE_DIMS[1];

interface StreamState {
  state: Float32Array;
  context: Float32Array;
}

function float32(result: ort.InferenceSession.ReturnType, name: string): Float32Array {
  const t = result[name];
  if (t === undefined || !(t.data instanceof Float32Array)) {
    throw new Error(`expected float32 output ${name}, got [${Object.keys(result).join(', ')}]`);
  }
  return t.data;
}

export async function naiveSteps(streams: number): Promise<StepFunction> {
  // Log level 3 (errors) only silences the load-time warnings about unused initializers.
  const session = await ort.InferenceSession.create(sileroSourceModelPath(), {
    logSeverityLevel: 3,
  });
  const sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(SILERO_SAMPLE_RATE)), []);
  const states: StreamState[] = Array.from({ length: streams }, () => ({
    state: new Float32Array(STATE_SIZE),
    context: new Float32Array(CONTEXT),
  }));
  // The one-at-a-time queue: each step chains on the previous one.
  let tail: Promise<unknown> = Promise.resolve();
  return (stream, s) => {
    const run = async (): Promise<void> => {
      const st = states[stream] as StreamState;
      if (s.start) {
        st.state = new Float32Array(STATE_SIZE);
        st.context = new Float32Array(CONTEXT);
      }
      const audio = new Float32Array(s.chunk.buffer, s.chunk.byteOffset, CHUNK);
      const input = new Float32Array(CONTEXT + CHUNK);
      input.set(st.context);
      input.set(audio, CONTEXT);
      const result = await session.run({
        input: new ort.Tensor('float32', input, [1, CONTEXT + CHUNK]),
        sr,
        state: new ort.Tensor('float32', st.state, [SILERO_STATE_DIMS[0], 1, SILERO_STATE_DIMS[1]]),
      });
      float32(result, 'output');
      st.state = float32(result, 'stateN').slice();
      st.context = audio.slice(CHUNK - CONTEXT);
    };
    const done = tail.then(run);
    tail = done.catch(() => undefined);
    return done;
  };
}
