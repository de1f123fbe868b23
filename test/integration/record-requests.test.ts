// --record-requests on a real server: with rate 1 every answered request is written as a KServe v2
// JSON request plus the answer given, until the byte budget is spent (the rest counted, not
// written); no header reaches the files; and `infernode validate --requests` replays them.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIST } from '../helpers/paths.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

/** Bytes one recorded request of 2 rows holds: 2x784 FP32 inputs and 2x10 FP32 outputs. */
const REQUEST_BYTES = 2 * 784 * 4 + 2 * 10 * 4;

interface Recorded {
  inputs: { name: string; datatype: string; shape: number[]; data: number[] }[];
  recorded_response: {
    model_name: string;
    model_version: string;
    outputs: { name: string; data: number[] }[];
  };
}

void describe('--record-requests', () => {
  let repo: string;
  let dir: string;
  before(async () => {
    repo = await tempRepository();
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-recorded-'));
    await copyModel(repo, 'mlp');
  });
  after(async () => {
    await rm(repo, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  void it('records sampled requests within the byte budget, and validate replays them', async () => {
    const s = await spawnServer([
      `--model-repository=${repo}`,
      `--record-requests=${dir}`,
      '--record-requests-rate=1',
      `--record-requests-max-bytes=${2 * REQUEST_BYTES + 100}`,
    ]);
    const sent: number[][] = [];
    const answers: number[][] = [];
    try {
      for (let r = 0; r < 3; r++) {
        const data = Array.from({ length: 2 * 784 }, (_, k) => Math.fround(Math.sin(r * 7919 + k)));
        sent.push(data);
        const res = await fetch(`${s.base}/v2/models/mlp/infer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer do-not-record-me' },
          body: JSON.stringify({
            inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [2, 784], data }],
          }),
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as { outputs: { data: number[] }[] };
        answers.push(body.outputs[0]?.data ?? []);
      }
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    const files = (await readdir(path.join(dir, 'mlp'))).sort();
    assert.deepEqual(files, ['1-00000000.json', '1-00000001.json']);
    for (const [i, f] of files.entries()) {
      const text = await readFile(path.join(dir, 'mlp', f), 'utf8');
      assert.ok(!text.includes('do-not-record-me'), 'a header reached the recording');
      const rec = JSON.parse(text) as Recorded;
      assert.deepEqual(rec.inputs[0]?.shape, [2, 784]);
      assert.deepEqual(rec.inputs[0]?.data, sent[i]);
      assert.equal(rec.recorded_response.model_version, '1');
      assert.deepEqual(rec.recorded_response.outputs[0]?.data, answers[i]);
    }
    const counts = s.lines.find((l) => l.includes('recorded requests'));
    assert.ok(counts !== undefined, s.lines.join('\n'));
    const stats = JSON.parse(counts) as {
      recorded: number;
      droppedBudget: number;
      recordedBytes: number;
    };
    assert.equal(stats.recorded, 2);
    assert.equal(stats.droppedBudget, 1);
    assert.equal(stats.recordedBytes, 2 * REQUEST_BYTES);

    // The recordings are validation samples as they stand.
    const result = await new Promise<{ code: number; stderr: string; stdout: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [
            path.join(DIST, 'src', 'cli', 'main.js'),
            'validate',
            '--model-repository',
            repo,
            '--model',
            'mlp',
            '--candidate',
            path.join(repo, 'mlp', '1', 'model.onnx'),
            '--requests',
            path.join(dir, 'mlp'),
            '--iterations',
            '3',
            '--batch-sizes',
            '1',
          ],
          (err, stdout, stderr) =>
            resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr }),
        );
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /2 sample\(s\), 4 row\(s\): 2 inference request\(s\) from /);
  });
});
