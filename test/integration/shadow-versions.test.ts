// Shadow versions on a real server with real ORT sessions: mlp version 1 serves, version 2 (made by
// the validate tests' generators) shadows it through `shadow_version` / `shadow_share`. A shadow
// identical to the primary reports zero difference, one with a changed weight reports it, share 0
// runs nothing, a slow shadow neither delays nor fails the clients (and drops what it cannot keep
// up with, counted), one that fails in ONNX Runtime on every run is counted and never fails a
// client, and only a request naming version 2 is answered by it.

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { failingRunModel } from '../../scripts/onnx/fixture-models.js';
import {
  ELEM,
  encodeModel,
  intAttribute,
  node,
  tensorValue,
} from '../../scripts/onnx/graph-builder.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { tempRepository } from '../helpers/temp-repository.js';
import {
  PERTURBED,
  perturbedMlp,
  sameMlp,
  servingModel,
  slowerMlp,
  writeVersion,
} from '../helpers/validate-models.js';

const repos: string[] = [];
after(async () => {
  for (const r of repos) await rm(r, { recursive: true, force: true });
});

/** A repository with mlp version 1 as generated and `candidate` as version 2, shadowing it. */
async function shadowRepository(candidate: Uint8Array, share: string): Promise<string> {
  const repo = await tempRepository();
  repos.push(repo);
  await servingModel(repo, 'mlp');
  await writeVersion(repo, 'mlp', 2, candidate);
  const config = path.join(repo, 'mlp', 'config.pbtxt');
  await writeFile(
    config,
    `${await readFile(config, 'utf8')}parameters {
  key: "shadow_version"
  value: { string_value: "2" }
}
parameters {
  key: "shadow_share"
  value: { string_value: "${share}" }
}
`,
  );
  return repo;
}

function rows(n: number, seed: number): number[] {
  return Array.from({ length: n * 784 }, (_, k) => Math.fround(Math.sin(seed * 7919 + k)));
}

async function infer(
  s: SpawnedServer,
  n: number,
  seed: number,
  version?: string,
): Promise<{ version: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(
    `${s.base}/v2/models/mlp${version === undefined ? '' : `/versions/${version}`}/infer`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [n, 784], data: rows(n, seed) }],
      }),
    },
  );
  const body = (await res.json()) as { model_version?: string; error?: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return { version: body.model_version ?? '', ms: performance.now() - t0 };
}

async function metrics(s: SpawnedServer): Promise<string> {
  return (await fetch(`${s.metricsBase}/metrics`)).text();
}

/** The value of the first sample line starting with `prefix` (labels included), or undefined. */
function sample(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const PAIR = 'model="mlp",version="1",shadow_version="2"';

/** Waits until the shadow has reported `n` requests with `outcome` (or the deadline passes). */
async function outcomes(s: SpawnedServer, outcome: string, n: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await metrics(s);
    const got = sample(text, `infernode_shadow_requests_total{${PAIR},outcome="${outcome}"}`) ?? 0;
    if (got >= n || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withServer(repo: string, body: (s: SpawnedServer) => Promise<void>): Promise<void> {
  const s = await spawnServer([`--model-repository=${repo}`]);
  try {
    await body(s);
  } finally {
    s.child.kill('SIGTERM');
    await s.exited;
  }
}

void describe('shadow versions', () => {
  void it('an identical shadow reports zero difference and full top-1 agreement', async () => {
    await withServer(await shadowRepository(sameMlp(), '1'), async (s) => {
      for (let i = 0; i < 4; i++) assert.equal((await infer(s, 3, i)).version, '1');
      const text = await outcomes(s, 'compared', 4);
      assert.equal(sample(text, `infernode_shadow_requests_total{${PAIR},outcome="compared"}`), 4);
      const q = `infernode_shadow_max_abs_diff{quantile="1",${PAIR},output="OUTPUT0"}`;
      assert.equal(sample(text, q), 0, text);
      assert.equal(
        sample(text, `infernode_shadow_top1_agreement{${PAIR},output="OUTPUT0"}`),
        1,
        text,
      );
      assert.ok((sample(text, `infernode_shadow_latency_ratio_count{${PAIR}}`) ?? 0) >= 4, text);
    });
  });

  void it('a shadow with one weight changed reports the difference', async () => {
    await withServer(await shadowRepository(perturbedMlp(), '1'), async (s) => {
      for (let i = 0; i < 4; i++) await infer(s, 3, i);
      const text = await outcomes(s, 'compared', 4);
      const max = sample(
        text,
        `infernode_shadow_max_abs_diff{quantile="1",${PAIR},output="OUTPUT0"}`,
      );
      assert.ok(max !== undefined && max > 0 && max < 1, `max_abs_diff ${String(max)}\n${text}`);
      // One last-layer weight moved by 1e-2 moves one logit by at most 1e-2 * |hidden activation|.
      assert.ok(max > PERTURBED.delta / 1000, `max_abs_diff ${max}`);
    });
  });

  void it('share 0 runs nothing, and the shadow is served only to requests naming it', async () => {
    await withServer(await shadowRepository(perturbedMlp(), '0'), async (s) => {
      // Version 2 is the higher one, and version_policy (latest 1) would serve it: the shadow is not.
      for (let i = 0; i < 5; i++) assert.equal((await infer(s, 2, i)).version, '1');
      assert.equal((await infer(s, 2, 0, '2')).version, '2');
      assert.equal((await infer(s, 2, 0, '1')).version, '1');
      const ready = await fetch(`${s.base}/v2/models/mlp/versions/2/ready`);
      assert.equal(ready.status, 200);
      await new Promise((r) => setTimeout(r, 300));
      const text = await metrics(s);
      assert.ok(!text.includes('infernode_shadow_requests_total{'), text);
    });
  });

  void it('a slow shadow never delays a client; what it cannot keep up with is dropped', async () => {
    await withServer(await shadowRepository(slowerMlp(120), '1'), async (s) => {
      await infer(s, 1, 99); // warm both paths
      await outcomes(s, 'compared', 1);
      // One request alone: its answer comes back, then the shadow re-runs it.
      const sent = performance.now();
      const first = await infer(s, 64, 1);
      await outcomes(s, 'compared', 2);
      const shadowDone = performance.now() - sent;
      // The client's answer took a fraction of the time the shadow's re-run did.
      assert.ok(
        first.ms * 2 < shadowDone,
        `client ${first.ms.toFixed(0)} ms, shadow done after ${shadowDone.toFixed(0)} ms`,
      );
      // A burst of 40, all sampled: every client is answered; the shadow runs one at a time and
      // holds 16 at most, so it drops some (counted), and every sampled request is accounted for.
      const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => infer(s, 8, i)));
      assert.equal(burst.length, 40);
      const deadline = Date.now() + 60_000;
      let text = '';
      let compared = 0;
      let dropped = 0;
      while (compared + dropped < 42 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        text = await metrics(s);
        compared = sample(text, `infernode_shadow_requests_total{${PAIR},outcome="compared"}`) ?? 0;
        dropped = sample(text, `infernode_shadow_requests_total{${PAIR},outcome="dropped"}`) ?? 0;
      }
      assert.equal(compared + dropped, 42, text);
      assert.ok(dropped > 0 && compared > 2, `compared ${compared}, dropped ${dropped}`);
      assert.equal(
        sample(text, `infernode_shadow_requests_total{${PAIR},outcome="failed"}`),
        undefined,
      );
    });
  });

  void it('takes only idle capacity: re-runs are dropped while clients wait in the queue', async () => {
    // Version 1 and its shadow are the same slow export, on one instance: the first request of a
    // burst runs alone while the rest queue behind it, so when its re-run's turn comes the serving
    // version has clients waiting whatever the transport's speed (a fast model on two instances
    // could drain the burst as fast as it arrives).
    const slow = slowerMlp(60);
    const repo = await shadowRepository(slow, '1');
    await writeVersion(repo, 'mlp', 1, slow);
    const config = path.join(repo, 'mlp', 'config.pbtxt');
    const text0 = await readFile(config, 'utf8');
    assert.ok(text0.includes('count: 2'), 'mlp config has two instances');
    await writeFile(config, text0.replace('count: 2', 'count: 1'));
    await withServer(repo, async (s) => {
      await infer(s, 1, 99);
      await outcomes(s, 'compared', 1);
      // Fewer requests than the 16 re-runs the shadow may hold, so a drop here can only be the
      // serving version being busy when a re-run's turn comes.
      await Promise.all(Array.from({ length: 12 }, (_, i) => infer(s, 8, i)));
      const deadline = Date.now() + 30_000;
      let text = '';
      let compared = 0;
      let dropped = 0;
      while (compared + dropped < 13 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        text = await metrics(s);
        compared = sample(text, `infernode_shadow_requests_total{${PAIR},outcome="compared"}`) ?? 0;
        dropped = sample(text, `infernode_shadow_requests_total{${PAIR},outcome="dropped"}`) ?? 0;
      }
      assert.equal(compared + dropped, 13, text);
      assert.ok(dropped > 0, `compared ${compared}, dropped ${dropped}: nothing was dropped`);
    });
  });

  void it('a shadow failing in ONNX Runtime is counted and never fails the client', async () => {
    // version 1: OUTPUT0 = [INPUT0, INPUT0]; version 2: failing_run's model (every run fails).
    const repo = await tempRepository();
    repos.push(repo);
    await writeVersion(
      repo,
      'pair',
      1,
      encodeModel({
        name: 'pair',
        inputs: [tensorValue('INPUT0', ELEM.FLOAT, ['batch', 4])],
        outputs: [tensorValue('OUTPUT0', ELEM.FLOAT, ['batch', 8])],
        nodes: [
          node('Concat', ['INPUT0', 'INPUT0'], ['OUTPUT0'], 'cat', [intAttribute('axis', 1)]),
        ],
      }),
    );
    await writeVersion(repo, 'pair', 2, failingRunModel());
    await writeFile(
      path.join(repo, 'pair', 'config.pbtxt'),
      `name: "pair"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 8 ] } ]
instance_group [ { count: 1, kind: KIND_CPU } ]
parameters { key: "shadow_version" value: { string_value: "2" } }
parameters { key: "shadow_share" value: { string_value: "1" } }
`,
    );
    await withServer(repo, async (s) => {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${s.base}/v2/models/pair/infer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [i, 1, 2, 3] }],
          }),
        });
        const body = (await res.json()) as { model_version: string; outputs: { data: number[] }[] };
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.model_version, '1');
        assert.deepEqual(body.outputs[0]?.data, [i, 1, 2, 3, i, 1, 2, 3]);
      }
      const pair = 'model="pair",version="1",shadow_version="2"';
      const deadline = Date.now() + 20_000;
      let text = '';
      while (Date.now() < deadline) {
        text = await metrics(s);
        if (sample(text, `infernode_shadow_requests_total{${pair},outcome="failed"}`) === 3) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(
        sample(text, `infernode_shadow_requests_total{${pair},outcome="failed"}`),
        3,
        text,
      );
      assert.equal(
        sample(text, `infernode_shadow_requests_total{${pair},outcome="compared"}`),
        undefined,
      );
    });
  });
});
