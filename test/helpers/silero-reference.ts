// Step-by-step runners for Silero VAD, in-process on onnxruntime-node: the package's ORIGINAL model
// with its state and 64-sample context carried by hand (the reference answer), and the bundled
// WRAPPED model with `state_out` / `context_out` fed back as `state` / `context`, one row per
// sequence, which is what the sequence batcher does with implicit state. Also the committed speech
// clips, read as 16 kHz float32 samples.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import {
  SILERO_CHUNK_SAMPLES as CHUNK,
  SILERO_CONTEXT_SAMPLES as CONTEXT,
  SILERO_SAMPLE_RATE,
  SILERO_STATE_DIMS,
} from '../../scripts/onnx/silero-vad-wrapper.js';
import { TEST_FIXTURES } from './paths.js';

/** The committed clips (test/fixtures/audio/README.md says how they were made). */
export const SPEECH_CLIPS = ['hello', 'weather', 'numbers'] as const;
export type SpeechClip = (typeof SPEECH_CLIPS)[number];

const STATE_SIZE = SILERO_STATE_DIMS[0] * SILERO_STATE_DIMS[1];

/** A clip's samples, decoded as little-endian float32 whatever the host's byte order. */
export function readClip(clip: SpeechClip): Float32Array {
  const bytes = readFileSync(path.join(TEST_FIXTURES, 'audio', `${clip}.f32`));
  if (bytes.length % 4 !== 0) throw new Error(`${clip}.f32: ${bytes.length} bytes is not float32`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const samples = new Float32Array(bytes.length / 4);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getFloat32(i * 4, true);
  return samples;
}

/** How many 512-sample steps a clip takes; the last chunk is zero-padded. */
export function stepCount(samples: Float32Array): number {
  return Math.ceil(samples.length / CHUNK);
}

/** Chunk `step` of `samples` (zeros past the end). */
function chunk(samples: Float32Array, step: number): Float32Array {
  const out = new Float32Array(CHUNK);
  const start = step * CHUNK;
  if (start < samples.length) out.set(samples.subarray(start, start + CHUNK));
  return out;
}

function output(result: ort.InferenceSession.ReturnType, name: string): Float32Array {
  const t = result[name];
  if (t === undefined || !(t.data instanceof Float32Array)) {
    throw new Error(`expected float32 output ${name}, got [${Object.keys(result).join(', ')}]`);
  }
  return t.data;
}

/**
 * The original model (input = previous 64 samples then 512 new ones, sr, state[2, 1, 128]) over
 * one clip: per-step speech probabilities. The state and context start at zero, as Silero's own
 * streaming loop starts them.
 */
export async function runOriginal(
  session: ort.InferenceSession,
  samples: Float32Array,
): Promise<Float32Array> {
  const probabilities = new Float32Array(stepCount(samples));
  const sr = new ort.Tensor('int64', BigInt64Array.of(BigInt(SILERO_SAMPLE_RATE)), []);
  let state = new Float32Array(STATE_SIZE);
  let context = new Float32Array(CONTEXT);
  for (let step = 0; step < probabilities.length; step++) {
    const audio = chunk(samples, step);
    const input = new Float32Array(CONTEXT + CHUNK);
    input.set(context);
    input.set(audio, CONTEXT);
    const result = await session.run({
      input: new ort.Tensor('float32', input, [1, CONTEXT + CHUNK]),
      sr,
      state: new ort.Tensor('float32', state, [SILERO_STATE_DIMS[0], 1, SILERO_STATE_DIMS[1]]),
    });
    probabilities[step] = output(result, 'output')[0] as number;
    state = output(result, 'stateN').slice();
    context = audio.slice(CHUNK - CONTEXT);
  }
  return probabilities;
}

export interface WrappedRunOptions {
  /** Start every step from zero state and silent context, as if each chunk began a sequence. */
  readonly resetEveryStep?: boolean;
}

/**
 * The wrapped model over several clips at once, one batch row per clip, each row's `state_out`
 * and `context_out` fed back into that row only. Rows run as many steps as the longest clip;
 * a shorter clip's row gets silence after its end, and its result is cut to its own step count.
 */
export async function runWrapped(
  session: ort.InferenceSession,
  clips: readonly Float32Array[],
  options: WrappedRunOptions = {},
): Promise<Float32Array[]> {
  const batch = clips.length;
  const steps = Math.max(...clips.map(stepCount));
  const probabilities = clips.map(() => new Float32Array(steps));
  let state = new Float32Array(batch * STATE_SIZE);
  let context = new Float32Array(batch * CONTEXT);
  for (let step = 0; step < steps; step++) {
    const audio = new Float32Array(batch * CHUNK);
    clips.forEach((clip, row) => audio.set(chunk(clip, step), row * CHUNK));
    if (options.resetEveryStep === true) {
      state = new Float32Array(batch * STATE_SIZE);
      context = new Float32Array(batch * CONTEXT);
    }
    const result = await session.run({
      audio: new ort.Tensor('float32', audio, [batch, CHUNK]),
      state: new ort.Tensor('float32', state, [batch, ...SILERO_STATE_DIMS]),
      context: new ort.Tensor('float32', context, [batch, CONTEXT]),
    });
    const p = output(result, 'probability');
    probabilities.forEach((row, r) => (row[step] = p[r] as number));
    state = output(result, 'state_out').slice();
    context = output(result, 'context_out').slice();
  }
  return probabilities.map((row, r) => row.slice(0, stepCount(clips[r] as Float32Array)));
}
