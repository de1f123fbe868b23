// The bundled silero_vad wrapper against the package's original model, in-process, on the committed
// espeak-ng clips: step by step with the state and context fed back it gives the original's
// probabilities; the clips really are speech to the model; a batch of three sequences equals three
// runs alone; and the carried state matters (resetting it each step changes the answer). The
// committed config.pbtxt is checked against the wrapper's signature.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import ort from 'onnxruntime-node';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import { generateBundled } from '../../../scripts/generate-models.js';
import {
  SILERO_CHUNK_SAMPLES,
  sileroSourceModelPath,
} from '../../../scripts/onnx/silero-vad-wrapper.js';
import {
  SPEECH_CLIPS,
  readClip,
  runOriginal,
  runWrapped,
  type SpeechClip,
} from '../../helpers/silero-reference.js';
import { MODEL_REPOSITORY } from '../../helpers/paths.js';
import { sequenceModelIo, sessionIo } from '../../helpers/sequence-model-io.js';
import { openSession, tempDir } from './model-dirs.js';

/** Agreement between the wrapper and the original, per step (the task's bound; measured: 0). */
const TOLERANCE = 1e-4;
/** Leading silence is 0.5 s; the first 12 steps (0.384 s) are silence whatever the resampler did. */
const SILENT_STEPS = Math.floor((0.4 * 16000) / SILERO_CHUNK_SAMPLES);

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++)
    max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}

void describe('silero_vad wrapper', () => {
  let repo: Awaited<ReturnType<typeof tempDir>>;
  let original: ort.InferenceSession;
  let wrapped: ort.InferenceSession;
  const clips = new Map<SpeechClip, Float32Array>();
  const reference = new Map<SpeechClip, Float32Array>();

  before(async () => {
    repo = await tempDir('silero');
    await generateBundled(repo.dir);
    wrapped = await openSession(repo.dir, 'silero_vad');
    original = await ort.InferenceSession.create(sileroSourceModelPath(), { intraOpNumThreads: 1 });
    for (const clip of SPEECH_CLIPS) {
      const samples = readClip(clip);
      clips.set(clip, samples);
      reference.set(clip, await runOriginal(original, samples));
    }
  });
  after(async () => {
    await wrapped.release();
    await original.release();
    await repo.dispose();
  });

  const clip = (c: SpeechClip): Float32Array => clips.get(c) as Float32Array;
  const ref = (c: SpeechClip): Float32Array => reference.get(c) as Float32Array;

  void it('exposes audio, batch-first state and context, and no sr', () => {
    assert.deepEqual(wrapped.inputNames, ['audio', 'state', 'context']);
    assert.deepEqual(wrapped.outputNames, ['probability', 'state_out', 'context_out']);
  });

  void it('the committed config.pbtxt names exactly its inputs, outputs and states', async () => {
    const file = path.join(MODEL_REPOSITORY, 'silero_vad', 'config.pbtxt');
    const raw = parseModelConfig(await readFile(file), file);
    assert.deepEqual(sequenceModelIo(raw), sessionIo(wrapped));
    assert.deepEqual(raw.sequence_batching?.oldest?.preferred_batch_size, [16, 32, 64]);
    assert.deepEqual(
      raw.sequence_batching?.state?.map((s) => s.initial_state?.[0]?.zero_data),
      [true, true],
    );
  });

  for (const c of SPEECH_CLIPS) {
    void it(`${c}: step by step, equals the original model on every step`, async () => {
      const [got] = await runWrapped(wrapped, [clip(c)]);
      assert.ok(got);
      assert.equal(got.length, Math.ceil(clip(c).length / SILERO_CHUNK_SAMPLES));
      const diff = maxAbsDiff(got, ref(c));
      assert.ok(diff <= TOLERANCE, `${c}: max |wrapped - original| = ${diff}`);
    });

    void it(`${c}: is speech to the model, and its leading silence is not`, () => {
      const p = ref(c);
      const silence = Math.max(...p.subarray(0, SILENT_STEPS));
      const speech = Math.max(...p);
      assert.ok(silence < 0.2, `${c}: max p over the leading silence = ${silence}`);
      assert.ok(speech > 0.5, `${c}: max p = ${speech}`);
      // Speech is a span, not one spike: at least 0.5 s of chunks above 0.5.
      const voiced = p.filter((x) => x > 0.5).length;
      assert.ok(voiced * SILERO_CHUNK_SAMPLES >= 8000, `${c}: ${voiced} voiced steps`);
      // And the trailing silence brings the probability back down.
      assert.ok((p[p.length - 1] as number) < 0.2, `${c}: last p = ${p[p.length - 1]}`);
    });
  }

  void it('a batch of three sequences, one row each, equals each run alone', async () => {
    const batched = await runWrapped(wrapped, SPEECH_CLIPS.map(clip));
    for (const [i, c] of SPEECH_CLIPS.entries()) {
      const [alone] = await runWrapped(wrapped, [clip(c)]);
      assert.ok(alone);
      const row = batched[i] as Float32Array;
      const diff = maxAbsDiff(row, alone);
      assert.ok(diff <= TOLERANCE, `${c}: max |batched - alone| = ${diff}`);
      assert.ok(maxAbsDiff(row, ref(c)) <= TOLERANCE, `${c}: batched vs original`);
    }
  });

  void it('the carried state matters: resetting it every step changes the answer', async () => {
    for (const c of SPEECH_CLIPS) {
      const [reset] = await runWrapped(wrapped, [clip(c)], { resetEveryStep: true });
      assert.ok(reset);
      const diff = maxAbsDiff(reset, ref(c));
      assert.ok(diff > 0.5, `${c}: max |reset - carried| = ${diff}`);
    }
  });
});
