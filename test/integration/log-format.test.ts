// The `--log-*` flags on the real command: --log-format's three formats, --log-file, a bad value,
// and ONNX Runtime's own log lines following the server's level (silero_vad, whose ONNX file holds
// three unused initializers, makes ORT warn "Removing initializer" when its session is created:
// raw and colour-coded on stderr unless the server's level lets warnings through).

import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/http/free-port.js';
import { runCli } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Runs the server until it answers ready, stops it with SIGTERM, and returns everything it printed.
 * Readiness over HTTP rather than a log line: a reply means the process's event loop has turned
 * since start-up ended, so its SIGTERM handler is in place (and some runs log no line to wait on).
 */
async function serve(args: readonly string[]): Promise<string[]> {
  const port = await freePort('127.0.0.1');
  const run = runCli([
    '--http-address=127.0.0.1',
    `--http-port=${port}`,
    '--grpc-port=0',
    '--metrics-port=0',
    ...args,
  ]);
  const ready = await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/v2/health/ready`).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200,
    60_000,
  );
  run.child.kill('SIGTERM');
  const code = await run.exited;
  assert.equal(ready, 200, `the server did not start:\n${run.lines.join('\n')}`);
  assert.equal(code, 0, run.lines.join('\n'));
  return run.lines;
}

void describe('--log-format, --log-file and ONNX Runtime log lines', () => {
  let repo: string;
  let vadRepo: string;
  const logFile = path.join(os.tmpdir(), `infernode-log-${process.pid}.log`);
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    vadRepo = await tempRepository();
    await copyModel(vadRepo, 'silero_vad');
  });
  after(async () => {
    await rm(logFile, { force: true });
  });

  void it('json by default: every line is one JSON object', async () => {
    const lines = await serve([`--model-repository=${repo}`]);
    const serving = lines.find((l) => l.includes('serving HTTP on ')) ?? '';
    const record = JSON.parse(serving) as { level: number; msg: string; pid: number };
    assert.equal(record.level, 30);
    for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), l);
  });

  void it("default: Triton's line, severity letter, date and time, pid, source", async () => {
    const lines = await serve([`--model-repository=${repo}`, '--log-format=default']);
    const serving = lines.find((l) => l.includes('serving HTTP on ')) ?? '';
    assert.match(serving, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ infernode\] serving HTTP on /);
    assert.match(serving, / httpPort=\d+ /);
  });

  void it("ISO8601: Triton's ISO 8601 line", async () => {
    const lines = await serve([`--model-repository=${repo}`, '--log-format=ISO8601']);
    const serving = lines.find((l) => l.includes('serving HTTP on ')) ?? '';
    assert.match(serving, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I \d+ infernode\] serving HTTP on /);
  });

  void it('--log-file: the records go to the file, not stdout', async () => {
    const lines = await serve([`--model-repository=${repo}`, `--log-file=${logFile}`]);
    assert.deepEqual(lines, [], 'nothing on stdout or stderr');
    const written = (await readFile(logFile, 'utf8')).split('\n').filter((l) => l !== '');
    assert.ok(written.some((l) => l.includes('serving HTTP on ')));
    assert.ok(
      written.some((l) => l.includes('exiting with status 0')),
      'the last record too',
    );
  });

  void it('--log-info=false drops info records, keeps the rest', async () => {
    const lines = await serve([`--model-repository=${repo}`, '--log-info=false']);
    const levels = lines.map((l) => (JSON.parse(l) as { level: number }).level);
    assert.ok(!levels.includes(30), lines.join('\n'));
  });

  void it('a bad --log-format is a flag error', async () => {
    const run = runCli(['--model-repository=/nonexistent', '--log-format=xml']);
    assert.equal(await run.exited, 2);
    assert.match(
      run.lines.join('\n'),
      /--log-format: expected one of json, default, ISO8601, got 'xml'/,
    );
  });

  void it("ONNX Runtime's warnings are not printed raw at the default level", async () => {
    const lines = await serve([`--model-repository=${vadRepo}`]);
    assert.deepEqual(
      lines.filter((l) => l.includes('onnxruntime')),
      [],
      'no ORT line at --log-verbose=0',
    );
    for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), l);
  });

  void it('with --log-verbose=1 they are', async () => {
    const lines = await serve([`--model-repository=${vadRepo}`, '--log-verbose=1']);
    const ort = lines.filter((l) => l.includes('Removing initializer'));
    assert.equal(ort.length, 3, lines.join('\n'));
  });
});
