// WebGPU instances on a machine without a GPU. With the test-only stand-in (test-gpu-target.ts) a
// KIND_GPU model naming the webgpu accelerator starts four real worker threads with real ORT
// sessions (CPU provider in WebGPU's place) that take their device's lock exactly as on a GPU: the
// record of every session creation, run and release shows no two overlapping, under concurrent
// HTTP load, across two models, through an unload. Without the stand-in, the same model fails to
// load with what this host lacks for WebGPU, and the CPU model beside it keeps serving.

import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEPLOYED_MALLOC_ENV } from '../../../src/memory/malloc-environment.js';
import {
  overlappingSections,
  parseSections,
  TEST_GPU_RECORD_ENV,
  type RecordedSection,
} from '../../../src/execution/onnxruntime/test-gpu-target.js';
import { mlpReference } from '../../helpers/mlp-reference.js';
import { spawnServer, type SpawnedServer } from '../../helpers/spawn-server.js';
import { copyModel, tempRepository, writeModel } from '../../helpers/temp-repository.js';

const MLP_IO =
  'max_batch_size: 8\n' +
  'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 784 ] } ]\n' +
  'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 10 ] } ]\n';
const WEBGPU =
  'optimization { execution_accelerators { gpu_execution_accelerator [ { name: "webgpu" } ] } }\n';
const gpuModel = (name: string, count: number): string =>
  `name: "${name}"\nplatform: "onnxruntime_onnx"\n${MLP_IO}` +
  `instance_group [ { kind: KIND_GPU count: ${count} gpus: [ 0 ] } ]\n${WEBGPU}`;

const row = (k: number): number[] => Array.from({ length: 784 }, (_, i) => ((i * 7 + k) % 13) / 13);

async function inferMlp(base: string, model: string, k: number): Promise<number[]> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784], data: row(k) }],
    }),
  });
  const body = (await res.json()) as { outputs?: Array<{ data: number[] }>; error?: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.outputs?.[0]?.data ?? [];
}

function assertMlpRow(got: readonly number[], k: number): void {
  const want = mlpReference(Float32Array.from(row(k)));
  assert.equal(got.length, 10);
  got.forEach((v, i) => assert.ok(Math.abs(v - (want[i] as number)) < 1e-4, `output ${i}`));
}

const SIMPLE_INFER = {
  inputs: [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(2) },
    { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
  ],
};

async function inferSimple(base: string): Promise<void> {
  const res = await fetch(`${base}/v2/models/simple/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SIMPLE_INFER),
  });
  const body = (await res.json()) as { outputs: Array<{ name: string; data: number[] }> };
  assert.equal(res.status, 200);
  assert.deepEqual(body.outputs.find((o) => o.name === 'OUTPUT0')?.data, Array(16).fill(3));
}

const serverEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...DEPLOYED_MALLOC_ENV,
  ...extra,
});

/** A real server on a fresh repository, with the test-only GPU stand-in when `standIn` is set. */
interface Running {
  readonly server: SpawnedServer;
  /** The stand-in's locked sections so far. */
  sections(): Promise<RecordedSection[]>;
  close(): Promise<void>;
}

async function startOn(
  fill: (repo: string) => Promise<void>,
  args: readonly string[],
  standIn: boolean,
): Promise<Running> {
  const repo = await tempRepository();
  const record = path.join(repo, 'stand-in-record.txt');
  await fill(repo);
  const server = await spawnServer(
    ['--model-repository', repo, ...args],
    60_000,
    serverEnv(standIn ? { [TEST_GPU_RECORD_ENV]: record } : {}),
  );
  return {
    server,
    sections: async () => parseSections(await readFile(record, 'utf8')),
    close: async () => {
      server.child.kill('SIGTERM');
      await server.exited;
      await rm(repo, { recursive: true, force: true });
    },
  };
}

void describe('WebGPU instances: one device lock per process (test-only stand-in)', () => {
  let t: Running;
  before(async () => {
    t = await startOn(
      async (repo) => {
        await writeModel(repo, 'mlp_gpu', gpuModel('mlp_gpu', 4), 'mlp');
        await writeModel(repo, 'mlp_gpu_b', gpuModel('mlp_gpu_b', 2), 'mlp');
        await copyModel(repo, 'simple');
      },
      ['--model-control-mode=explicit', '--load-model=*'],
      true,
    );
  });
  after(() => t?.close());

  void it('four instances and a second model serve concurrent load, never two at once', async () => {
    const work: Array<Promise<void>> = [];
    for (let k = 0; k < 96; k++) {
      const model = k % 3 === 2 ? 'mlp_gpu_b' : 'mlp_gpu';
      work.push(inferMlp(t.server.base, model, k).then((got) => assertMlpRow(got, k)));
      if (k % 8 === 0) work.push(inferSimple(t.server.base));
    }
    await Promise.all(work);
    const sections = await t.sections();
    assert.equal(sections.filter((s) => s.what === 'create').length, 6);
    const runs = sections.filter((s) => s.what === 'run');
    // Dynamic batching may merge requests: at least one run per batch of 8, at most one each.
    assert.ok(runs.length >= 12 && runs.length <= 96, `runs: ${runs.length}`);
    assert.ok(new Set(runs.map((s) => s.threadId)).size >= 2, 'runs spread over instances');
    assert.deepEqual(overlappingSections(sections), []);
  });

  void it('an unload releases every session inside the lock, while the other model runs', async () => {
    const load = Array.from({ length: 24 }, (_, k) =>
      inferMlp(t.server.base, 'mlp_gpu_b', k).then((got) => assertMlpRow(got, k)),
    );
    const res = await fetch(`${t.server.base}/v2/repository/models/mlp_gpu/unload`, {
      method: 'POST',
    });
    assert.equal(res.status, 200);
    await Promise.all(load);
    const sections = await t.sections();
    assert.equal(sections.filter((s) => s.what === 'release').length, 4);
    assert.deepEqual(overlappingSections(sections), []);
    await inferSimple(t.server.base);
  });
});

void describe('WebGPU where this host cannot run it', () => {
  let t: Running;
  before(async () => {
    t = await startOn(
      async (repo) => {
        await writeModel(repo, 'mlp_gpu', gpuModel('mlp_gpu', 2), 'mlp');
        await copyModel(repo, 'simple');
      },
      ['--exit-on-error=false'],
      false,
    );
  });
  after(() => t?.close());

  void it('the GPU model fails to load naming what is missing; the CPU model serves', async () => {
    const res = await fetch(`${t.server.base}/v2/repository/index`, { method: 'POST' });
    const index = (await res.json()) as Array<{ name: string; state: string; reason: string }>;
    const gpu = index.find((m) => m.name === 'mlp_gpu');
    if (gpu?.state === 'READY') {
      // A host with a working Vulkan adapter (a GPU, or a software driver): then it must serve.
      assertMlpRow(await inferMlp(t.server.base, 'mlp_gpu', 1), 1);
    } else {
      assert.equal(gpu?.state, 'UNAVAILABLE');
      assert.match(
        gpu?.reason ?? '',
        /WebGPU found no GPU adapter: (the Vulkan loader|no Vulkan driver|no GPU device|the Vulkan loader, a Vulkan driver)/,
      );
      assert.doesNotMatch(gpu?.reason ?? '', /onnxruntime_src|\/tmp\//);
    }
    await inferSimple(t.server.base);
  });
});

void describe('--model-config-name=webgpu picks the bundled GPU configs (test-only stand-in)', () => {
  let t: Running;
  before(async () => {
    t = await startOn(
      async (repo) => {
        await copyModel(repo, 'ocr_detector');
        await copyModel(repo, 'simple');
      },
      ['--model-config-name=webgpu'],
      true,
    );
  });
  after(() => t?.close());

  void it('the model with configs/webgpu.pbtxt gets it; the one without keeps config.pbtxt', async () => {
    type Config = {
      instance_group: Array<{ kind: string; gpus: number[] }>;
      optimization?: {
        execution_accelerators?: { gpu_execution_accelerator?: Array<{ name: string }> };
      };
    };
    const config = async (m: string): Promise<Config> =>
      (await (await fetch(`${t.server.base}/v2/models/${m}/config`)).json()) as Config;
    const detector = await config('ocr_detector');
    assert.equal(detector.instance_group[0]?.kind, 'KIND_GPU');
    assert.deepEqual(detector.instance_group[0]?.gpus, [0]);
    assert.deepEqual(
      detector.optimization?.execution_accelerators?.gpu_execution_accelerator?.map((a) => a.name),
      ['webgpu'],
    );
    assert.equal((await config('simple')).instance_group[0]?.kind, 'KIND_CPU');
    const sections = await t.sections();
    assert.equal(sections.filter((s) => s.what === 'create').length, 1);
    await inferSimple(t.server.base);
  });
});
