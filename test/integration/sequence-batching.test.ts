// The sequence batcher on a real server: real speech streamed through the bundled Silero VAD
// (implicit state carried by the server) by 64 concurrent sequences over HTTP and WebSocket, checked
// step by step against the package's original model run in-process with its state carried by hand,
// under both strategies; and the accumulator fixtures for control values, correlation ids, idle
// release and Triton's errors on every transport.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ort from 'onnxruntime-node';
import { InferenceClient } from '../../src/client/inference-client.js';
import { tensor, type Tensor } from '../../src/client/client-tensor.js';
import { InferenceClientError, type InferResult } from '../../src/client/client-types.js';
import { sileroSourceModelPath } from '../../scripts/onnx/silero-vad-wrapper.js';
import { MODEL_REPOSITORY } from '../helpers/paths.js';
import { readClip, runOriginal, SPEECH_CLIPS } from '../helpers/silero-reference.js';
import { FIXTURE_REPOSITORY } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const CHUNK = 512;
const SEQUENCES = 64;
const STEPS = 24;
const TOLERANCE = 1e-4;

/** Sequence i's audio: a clip from an offset of its own, STEPS chunks long. */
function audioOf(i: number): Float32Array {
  const clip = readClip(SPEECH_CLIPS[i % SPEECH_CLIPS.length] as (typeof SPEECH_CLIPS)[number]);
  const offset = (i * 331) % (clip.length - STEPS * CHUNK);
  return clip.slice(offset, offset + STEPS * CHUNK);
}

const first = (r: InferResult, name: string): Tensor => {
  const t = r.outputs.find((o) => o.name === name);
  if (t === undefined) throw new Error(`no output ${name}`);
  return t;
};

const int32 = (v: number): Tensor => tensor('INPUT', 'INT32', [1, 1], Int32Array.of(v));
const outValue = (r: InferResult, name = 'OUTPUT'): number => Number(first(r, name).data[0]);

void describe('sequence batching on a real server', () => {
  let t: TestServer;
  let reference: Float32Array[];

  before(async () => {
    t = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY, FIXTURE_REPOSITORY],
      modelControlMode: 'explicit',
      loadModels: [
        'silero_vad',
        'silero_vad_direct',
        'sequence_accumulator',
        'sequence_accumulator_explicit',
      ],
    });
    const session = await ort.InferenceSession.create(sileroSourceModelPath());
    reference = [];
    for (let i = 0; i < SEQUENCES; i++) reference.push(await runOriginal(session, audioOf(i)));
    await session.release();
  });
  after(async () => {
    await t?.close();
  });

  for (const [strategy, model] of [
    ['oldest', 'silero_vad'],
    ['direct', 'silero_vad_direct'],
  ] as const) {
    void it(`streams 64 VAD sequences over HTTP and WebSocket, equal to the original model step by step (${strategy})`, async () => {
      const http = new InferenceClient({ url: t.base, protocol: 'http-binary' });
      const sockets = Array.from(
        { length: 4 },
        () => new InferenceClient({ url: t.base, protocol: 'ws' }),
      );
      const execsBefore = await counter(t, 'nv_inference_exec_count', model);
      try {
        const got = await Promise.all(
          Array.from({ length: SEQUENCES }, async (_, i) => {
            // Even sequences over HTTP with numeric ids, odd ones over WebSocket with string ids.
            const client = i % 2 === 0 ? http : (sockets[i % 4] as InferenceClient);
            const id = i % 2 === 0 ? 1000 + i : `${strategy}-stream-${i}`;
            const audio = audioOf(i);
            const probs = new Float32Array(STEPS);
            for (let s = 0; s < STEPS; s++) {
              const r = await client.infer(
                model,
                [tensor('audio', 'FP32', [1, CHUNK], audio.slice(s * CHUNK, (s + 1) * CHUNK))],
                { sequenceId: id, sequenceStart: s === 0, sequenceEnd: s === STEPS - 1 },
              );
              probs[s] = Number(first(r, 'probability').data[0]);
            }
            return probs;
          }),
        );
        let worst = 0;
        got.forEach((probs, i) => {
          const want = reference[i] as Float32Array;
          probs.forEach((p, s) => {
            worst = Math.max(worst, Math.abs(p - (want[s] as number)));
          });
        });
        assert.ok(worst <= TOLERANCE, `max |server - original| = ${worst}, tolerance ${TOLERANCE}`);
        // Real speech, not silence: some steps are speech to the model, some are not.
        const all = got.flatMap((p) => [...p]);
        assert.ok(Math.max(...all) > 0.9 && Math.min(...all) < 0.1, 'speech and non-speech steps');
        // Sequences shared runs: fewer executions than requests.
        const execs = (await counter(t, 'nv_inference_exec_count', model)) - execsBefore;
        assert.ok(
          execs < SEQUENCES * STEPS,
          `${execs} executions for ${SEQUENCES * STEPS} requests`,
        );
        // Every sequence ended: none is live, no slot held.
        assert.equal(await counter(t, 'infernode_sequence_live', model), 0);
        assert.equal(await counter(t, 'infernode_sequence_slots_in_use', model), 0);
      } finally {
        await http.close();
        for (const s of sockets) await s.close();
      }
    });
  }

  void it('fills START, READY and END per request and keeps sequences apart (explicit controls)', async () => {
    const body = (id: number, v: number, flags: Record<string, boolean>) => ({
      parameters: { sequence_id: id, ...flags },
      inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: [v] }],
    });
    const url = `${t.base}/v2/models/sequence_accumulator_explicit/infer`;
    const out = async (b: unknown): Promise<number> => {
      const r = await postJson(url, b);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      return r.json.outputs[0].data[0] as number;
    };
    // OUTPUT = INPUT + 100 START + 1000 END + 10000 READY
    assert.equal(await out(body(11, 1, { sequence_start: true })), 10_101);
    assert.equal(await out(body(12, 5, { sequence_start: true })), 10_105);
    assert.equal(await out(body(11, 2, {})), 10_002);
    assert.equal(await out(body(11, 3, { sequence_end: true })), 11_003);
    assert.equal(await out(body(12, 6, { sequence_start: true, sequence_end: true })), 11_106);
  });

  void it('carries the accumulator state and echoes the correlation id on HTTP, WebSocket and gRPC', async () => {
    for (const protocol of ['http-json', 'ws', 'ws-flatbuffers', 'grpc'] as const) {
      const client = new InferenceClient({
        url: protocol === 'grpc' ? t.grpcTarget : t.base,
        protocol,
      });
      try {
        const id = 4242;
        const a = await client.infer('sequence_accumulator', [int32(5)], {
          sequenceId: id,
          sequenceStart: true,
        });
        const b = await client.infer('sequence_accumulator', [int32(7)], { sequenceId: id });
        const c = await client.infer('sequence_accumulator', [int32(1)], {
          sequenceId: id,
          sequenceEnd: true,
        });
        assert.deepEqual([outValue(a), outValue(b), outValue(c)], [5, 12, 13], protocol);
        assert.equal(outValue(c, 'CORRID_OUT'), id, protocol);
        // Ended: the id is unknown again.
        await assert.rejects(
          client.infer('sequence_accumulator', [int32(1)], { sequenceId: id }),
          (e: unknown) =>
            e instanceof InferenceClientError &&
            /must specify the START flag on the first request of the sequence/.test(e.message),
          protocol,
        );
      } finally {
        await client.close();
      }
    }
  });

  void it('answers Triton-worded errors and keeps serving', async () => {
    const url = `${t.base}/v2/models/sequence_accumulator/infer`;
    const input = [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: [1] }];
    const none = await postJson(url, { inputs: input });
    assert.equal(none.status, 400);
    assert.equal(
      none.json.error,
      "inference request to model 'sequence_accumulator' must specify a non-zero or non-empty correlation ID",
    );
    const unknown = await postJson(url, { parameters: { sequence_id: 77 }, inputs: input });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.error, /inference request for sequence 77 to model/);
    const stringId = await postJson(url, {
      parameters: { sequence_id: 'abc', sequence_start: true },
      inputs: input,
    });
    assert.equal(stringId.status, 400, 'a UINT64 CORRID cannot carry a string id');
    assert.match(stringId.json.error, /takes correlation ids as UINT64/);
    const rows = await postJson(url, {
      parameters: { sequence_id: 3, sequence_start: true },
      inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [2, 1], data: [1, 2] }],
    });
    assert.equal(rows.status, 400);
    assert.match(
      rows.json.error,
      /must specify batch-size 1 due to requirements of sequence batcher/,
    );
    const ok = await postJson(url, {
      parameters: { sequence_id: 3, sequence_start: true, sequence_end: true },
      inputs: input,
    });
    assert.equal(ok.status, 200);
  });

  void it('releases a sequence left idle for max_sequence_idle_microseconds', async () => {
    const url = `${t.base}/v2/models/sequence_accumulator/infer`;
    const step = (flags: Record<string, boolean>) =>
      postJson(url, {
        parameters: { sequence_id: 99, ...flags },
        inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: [1] }],
      });
    assert.equal((await step({ sequence_start: true })).status, 200);
    assert.equal((await step({})).status, 200);
    const released = await counter(
      t,
      'infernode_sequence_idle_released_total',
      'sequence_accumulator',
    );
    // The fixture's idle time is 1 s: a client that went away frees its slot after it.
    await new Promise((r) => setTimeout(r, 1300));
    const late = await step({});
    assert.equal(late.status, 400);
    assert.match(late.json.error, /must specify the START flag/);
    assert.equal(
      await counter(t, 'infernode_sequence_idle_released_total', 'sequence_accumulator'),
      released + 1,
    );
  });

  // Last: it changes sequence_accumulator's config.
  void it('keeps open sequences through a no-op reload; a replacing reload asks them to START again', async () => {
    const model = 'sequence_accumulator';
    const url = `${t.base}/v2/models/${model}/infer`;
    const step = (v: number, flags: Record<string, boolean> = {}) =>
      postJson(url, {
        parameters: { sequence_id: 500, ...flags },
        inputs: [{ name: 'INPUT', datatype: 'INT32', shape: [1, 1], data: [v] }],
      });
    const load = (body: unknown) => postJson(`${t.base}/v2/repository/models/${model}/load`, body);
    assert.equal((await step(2, { sequence_start: true })).json.outputs[0].data[0], 2);
    // Same config, same file: nothing restarts, the sequence goes on.
    assert.equal((await load({})).status, 200);
    assert.equal((await step(3)).json.outputs[0].data[0], 5);
    // A new config replaces the version and its sequence batcher.
    const config = (await (await fetch(`${t.base}/v2/models/${model}/config`)).json()) as Record<
      string,
      any
    >;
    config['sequence_batching'].max_sequence_idle_microseconds = 2_000_000;
    const replaced = await load({ parameters: { config: JSON.stringify(config) } });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
    const lost = await step(4);
    assert.equal(lost.status, 400);
    assert.match(lost.json.error, /must specify the START flag on the first request/);
    assert.equal((await step(4, { sequence_start: true })).json.outputs[0].data[0], 4);
  });
});

/** One model's value of a metric family with model and version labels (0 when absent). */
async function counter(t: TestServer, family: string, model: string): Promise<number> {
  const text = await (await fetch(`${t.metricsBase}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${family}{`) && l.includes(`model="${model}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
