// ONNX Runtime's telemetry is off in a server started without ORT_DISABLE_TELEMETRY: no
// `mat-debug-<pid>.log` in its temp folder after it has loaded a model and answered a request.
// The control (a bare process creating a session with the variable unset) shows that this build
// of onnxruntime-node does write that file when nobody turns telemetry off; without that, the
// check would prove nothing, and it is skipped with the reason.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MODEL_REPOSITORY, REPO_ROOT } from '../helpers/paths.js';
import { spawnServer } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** This process's environment with a private temp folder and the telemetry variable unset. */
function envWithout(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env['ORT_DISABLE_TELEMETRY'];
  return env;
}

const telemetryFiles = (dir: string): string[] =>
  readdirSync(dir).filter((f) => f.startsWith('mat-debug-'));

void describe('ONNX Runtime telemetry', () => {
  void it('is off in the server unless the operator sets ORT_DISABLE_TELEMETRY', async (t) => {
    const control = await tempDir('infernode-ort-control-');
    const bare = spawnSync(
      process.execPath,
      [
        '-e',
        "require('onnxruntime-node').InferenceSession.create(process.argv[1]).then(() => {})",
        path.join(MODEL_REPOSITORY, 'simple', '1', 'model.onnx'),
      ],
      { cwd: REPO_ROOT, env: envWithout(control), encoding: 'utf8' },
    );
    assert.equal(bare.status, 0, bare.stderr);
    if (telemetryFiles(control).length === 0) {
      t.skip(
        'this onnxruntime-node writes no mat-debug file with telemetry on: nothing to tell apart',
      );
      return;
    }

    const tmp = await tempDir('infernode-ort-server-');
    const server = await spawnServer(
      [
        '--model-repository',
        MODEL_REPOSITORY,
        '--model-control-mode=explicit',
        '--load-model=simple',
      ],
      30_000,
      envWithout(tmp),
    );
    try {
      const res = await fetch(`${server.base}/v2/models/simple/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          inputs: ['INPUT0', 'INPUT1'].map((name) => ({
            name,
            datatype: 'INT32',
            shape: [1, 16],
            data: Array.from({ length: 16 }, (_, i) => i),
          })),
        }),
      });
      assert.equal(res.status, 200, await res.text());
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.deepEqual(telemetryFiles(tmp), [], 'the server wrote telemetry files');
  });
});
