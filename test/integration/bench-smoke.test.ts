// The benchmark harness end to end, briefly: real infernode (and the naive Fastify server and raw
// ORT for bench:compare) under real load, with 0.15 s windows. Asserts the shape of what a run
// writes and prints, never its speed.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DIST, MODEL_REPOSITORY } from '../helpers/paths.js';
import { toolingSkipped } from '../helpers/tooling-suites.js';

const temporary: string[] = [];
after(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/bench/cli.js <subcommand> args`. */
function run(subcommand: string, args: readonly string[]): Promise<Run> {
  const child = spawn(process.execPath, [path.join(DIST, 'bench', 'cli.js'), subcommand, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** The one run directory a command wrote under `outDir`. */
function runDir(outDir: string): string {
  const dirs = readdirSync(outDir).filter((d) => !d.includes('.'));
  assert.equal(dirs.length, 1, `one run directory in ${outDir}: ${dirs.join(', ')}`);
  return path.join(outDir, dirs[0] as string);
}

const json = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));

const PA_HEADER =
  'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,' +
  'Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,' +
  'p50 latency,p90 latency,p95 latency,p99 latency';

/**
 * A repository with only the models these runs use (copied from the bundled one): infernode then
 * starts two models instead of every bundled one, which keeps the whole file well under 30 s.
 */
function smallRepository(): string {
  const dir = tempDir('bench-repo-');
  for (const model of ['simple', 'mlp']) {
    cpSync(path.join(MODEL_REPOSITORY, model), path.join(dir, model), { recursive: true });
  }
  return dir;
}

const REPO = smallRepository();
const SHORT = ['-p', '150', '-r', '3', `--model-repository=${REPO}`];

function assertLevel(level: any, mode: string, value: number): void {
  assert.equal(level.mode, mode);
  assert.equal(level.value, value);
  assert.equal(typeof level.stable, 'boolean');
  assert.ok(level.windows.length >= 1 && level.windows.length <= 3);
  for (const w of level.windows) {
    assert.equal(typeof w.histogram, 'string');
    assert.ok(w.requests > 0, 'every window completed requests');
    assert.equal(w.errors, 0);
  }
  const s = level.summary;
  assert.ok(s.requests > 0 && s.reqPerSec > 0);
  const l = s.latency;
  assert.ok(0 < l.p50Us && l.p50Us <= l.p90Us && l.p90Us <= l.p95Us && l.p95Us <= l.p99Us);
  assert.ok(l.p99Us <= l.p999Us && l.p999Us <= l.maxUs);
  assert.equal(typeof s.cpu.generator, 'number');
}

void describe('bench (npm run bench)', { skip: toolingSkipped('bench') }, () => {
  void it('measures a concurrency sweep against infernode it started, and writes every output', async () => {
    const out = tempDir('bench-smoke-');
    const csv = path.join(out, 'pa.csv');
    const file = path.join(out, 'pa.json');
    const r = await run('run', [
      '--serve',
      '-m',
      'simple',
      '-b',
      '2',
      '--concurrency-range',
      '1:2',
      ...SHORT,
      '--out-dir',
      out,
      '-f',
      csv,
      '--json',
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[infernode\] concurrency 1: .* infer\/s, latency ms avg/);
    assert.match(r.stdout, /\[infernode\] concurrency 2: /);

    const result = json(file);
    assert.equal(result.schema, 'infernode-bench/1');
    assert.equal(result.kind, 'bench');
    assert.match(result.command, /cli\.js run --serve -m simple -b 2/);
    assert.equal(result.machine.cpus > 0, true);
    assert.match(result.machine.onnxruntimeNode, /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      result.model.inputs.map((i: any) => i.shape),
      [
        [2, 16],
        [2, 16],
      ],
    );
    const [target] = result.targets;
    assert.equal(target.id, 'infernode');
    assert.equal(target.levels.length, 2);
    target.levels.forEach((l: any, i: number) => assertLevel(l, 'concurrency', i + 1));
    for (const l of target.levels) {
      assert.equal(l.summary.inferences, l.summary.requests * 2);
      // infernode has the statistics extension: the breakdown is there, and it saw our requests.
      assert.ok(l.summary.server.requests > 0);
      assert.equal(l.summary.server.inferences, l.summary.server.requests * 2);
      assert.ok(l.summary.server.avgComputeInferUs > 0);
      assert.equal(typeof l.summary.cpu.server, 'number');
    }

    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    assert.equal(lines[0], PA_HEADER);
    assert.equal(lines.length, 3);
    assert.ok(lines.slice(1).every((l) => l.split(',').length === 13));

    const dir = runDir(out);
    assert.deepEqual(readdirSync(dir).sort(), [
      'infernode.csv',
      'plot.png',
      'report.html',
      'result.json',
    ]);
    assert.ok(readFileSync(path.join(dir, 'report.html'), 'utf8').includes('<svg'));
    assert.deepEqual(
      [...readFileSync(path.join(dir, 'plot.png')).subarray(0, 4)],
      [0x89, 0x50, 0x4e, 0x47],
    );
  });

  void it('runs an open-loop Poisson sweep with the binary tensor extension', async () => {
    const out = tempDir('bench-smoke-');
    const r = await run('run', [
      '--serve',
      '-m',
      'mlp',
      '--binary',
      '--request-rate-range',
      '40:80:40',
      '--request-distribution',
      'poisson',
      ...SHORT,
      '--out-dir',
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const result = json(path.join(runDir(out), 'result.json'));
    assert.equal(result.options.binary, true);
    assert.deepEqual(
      result.targets[0].levels.map((l: any) => l.value),
      [40, 80],
    );
    result.targets[0].levels.forEach((l: any, i: number) =>
      assertLevel(l, 'request-rate', 40 * (i + 1)),
    );
    assert.match(
      readFileSync(path.join(runDir(out), 'infernode.csv'), 'utf8'),
      /^Request Rate,Inferences\/Second,/,
    );
  });

  void it('runs -i ws: closed loop over WebSockets, the same outputs with the WebSocket transport', async () => {
    const out = tempDir('bench-smoke-');
    const r = await run('run', [
      '--serve',
      '-m',
      'simple',
      '-i',
      'ws',
      '--concurrency-range',
      '1:64:x64',
      ...SHORT,
      '--out-dir',
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[infernode\] concurrency 64: .* infer\/s, latency ms avg/);
    const dir = runDir(out);
    const result = json(path.join(dir, 'result.json'));
    assert.equal(result.options.protocol, 'ws');
    const [target] = result.targets;
    assert.equal(target.transport, 'WebSocket msgpack');
    assert.ok(target.notes.some((n: string) => /one WebSocket per 64 outstanding/.test(n)));
    assert.deepEqual(
      target.levels.map((l: any) => l.value),
      [1, 64],
    );
    target.levels.forEach((l: any, i: number) => assertLevel(l, 'concurrency', [1, 64][i] ?? 0));
    // The server's statistics saw the WebSocket requests.
    for (const l of target.levels) assert.ok(l.summary.server.requests > 0);
    assert.match(readFileSync(path.join(dir, 'infernode.csv'), 'utf8'), /^Concurrency,/);
  });

  void it('sends a sequence model its requests as sequences (perf_analyzer sequence flags)', async () => {
    const repo = tempDir('bench-seq-repo-');
    cpSync(path.join(MODEL_REPOSITORY, 'silero_vad'), path.join(repo, 'silero_vad'), {
      recursive: true,
    });
    const out = tempDir('bench-seq-');
    const file = path.join(out, 'seq.json');
    const r = await run('run', [
      '--serve',
      '-m',
      'silero_vad',
      '--concurrency-range',
      '2',
      '-p',
      '150',
      '-r',
      '3',
      `--model-repository=${repo}`,
      '--sequence-length',
      '3',
      '--sequence-length-variation',
      '0',
      '--sequence-id-range',
      '500:900',
      '--out-dir',
      out,
      '--json',
      file,
    ]);
    // The sequence batcher refuses a request without a sequence id, so no error means every
    // request arrived as part of a sequence, in order.
    assert.equal(r.code, 0, r.stderr);
    const result = json(file);
    assert.deepEqual(result.options.sequence.idRange, { start: 500, end: 900 });
    const [level] = result.targets[0].levels;
    assertLevel(level, 'concurrency', 2);
    assert.ok(level.summary.server.requests > 0);
  });

  void it('refuses a bad command line with exit code 2 and the reason', async () => {
    const r = await run('run', ['-m', 'mlp', '--concurrency-range', '4:1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--concurrency-range: end \(1\) is below start \(4\) in "4:1"/);
  });
});

void describe('bench:compare', { skip: toolingSkipped('bench') }, () => {
  void it('runs raw ORT, naive Fastify and infernode at the same levels and prints the comparison', async () => {
    const out = tempDir('bench-smoke-');
    const r = await run('compare', [
      '-m',
      'mlp',
      '--concurrency-range',
      '2',
      ...SHORT,
      '--raw-threads',
      '2',
      '--no-publish',
      '--out-dir',
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /concurrency +raw ORT req\/s +p50 ms +p99 ms +naive Fastify req\/s .* infernode\/naive req\/s +p99 +infernode\/raw req\/s +p99/,
    );
    assert.match(r.stdout, /^2 +[\d,.]+\*? /m);
    assert.match(r.stdout, /raw ORT, 2 threads/);

    const dir = runDir(out);
    const result = json(path.join(dir, 'result.json'));
    assert.equal(result.kind, 'compare');
    assert.deepEqual(
      result.targets.map((t: any) => t.id),
      ['raw-ort', 'raw-ort-main', 'raw-ort-threads', 'naive-fastify', 'infernode'],
    );
    for (const id of ['raw-ort', 'naive-fastify', 'infernode']) {
      const t = result.targets.find((x: any) => x.id === id);
      assert.equal(t.levels.length, 1);
      assertLevel(t.levels[0], 'concurrency', 2);
    }
    // Only infernode reports server-side statistics.
    assert.equal(result.targets[3].levels[0].summary.server, null);
    assert.ok(result.targets[4].levels[0].summary.server.requests > 0);
    assert.deepEqual(readdirSync(dir).sort(), [
      'infernode.csv',
      'naive-fastify.csv',
      'plot.png',
      'raw-ort-main.csv',
      'raw-ort-threads.csv',
      'raw-ort.csv',
      'report.html',
      'result.json',
    ]);
  });

  void it('--targets protocols: infernode over HTTP JSON, HTTP binary, WebSocket and gRPC, with ratios', async () => {
    const out = tempDir('bench-smoke-');
    const r = await run('compare', [
      '-m',
      'simple',
      '--targets',
      'protocols',
      '--concurrency-range',
      '2',
      ...SHORT,
      '--no-publish',
      '--out-dir',
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /concurrency +HTTP JSON req\/s +p50 ms +p99 ms +HTTP binary req\/s .* WebSocket msgpack req\/s .* ws\/json req\/s +p99 +binary\/json req\/s +p99/,
    );
    assert.match(r.stdout, /^2 +[\d,.]+\*? /m);
    assert.match(
      r.stdout,
      /Target: WebSocket at least 1\.5× HTTP JSON req\/s on `simple` — [\d.]+× at concurrency 2 \((met|not met)\)/,
    );
    assert.match(
      r.stdout,
      /gRPC unary req\/s .* gRPC stream req\/s .* grpc\/binary req\/s +p99 +stream\/ws req\/s +p99/,
    );
    assert.match(
      r.stdout,
      /Target: gRPC unary at least HTTP binary's req\/s on `simple` — [\d.]+× at concurrency 2 \((met|not met)\)/,
    );
    assert.match(
      r.stdout,
      /Target: gRPC stream at least 90 % of WebSocket msgpack's req\/s on `simple` — [\d.]+× at concurrency 2 \((met|not met)\)/,
    );
    const result = json(path.join(runDir(out), 'result.json'));
    assert.deepEqual(
      result.targets.map((t: any) => [t.id, t.transport]),
      [
        ['infernode', 'HTTP JSON'],
        ['infernode-binary', 'HTTP binary'],
        ['infernode-ws', 'WebSocket msgpack'],
        ['infernode-grpc', 'gRPC unary'],
        ['infernode-grpc-stream', 'gRPC stream'],
      ],
    );
    // The gRPC targets read the server's statistics over gRPC: the breakdown is there.
    for (const t of result.targets.slice(3)) assert.ok(t.levels[0].summary.server.requests > 0);
    for (const t of result.targets) assertLevel(t.levels[0], 'concurrency', 2);
  });
  void it('--thread-sweep: infernode at 2 threads and as 2 processes, the load split over both', async () => {
    const out = tempDir('bench-smoke-');
    const r = await run('compare', [
      '-m',
      'simple',
      '--thread-sweep',
      '2',
      '--targets',
      'infernode-ws',
      '--concurrency-range',
      '2',
      ...SHORT,
      '--no-publish',
      '--out-dir',
      out,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /transport +server +concurrency +req\/s +p50 ms +p99 ms +server cores +other cores +× 1 thread/,
    );
    assert.match(r.stdout, /^WebSocket msgpack +2 processes +2 +[\d,.]+\*? /m);
    const result = json(path.join(runDir(out), 'result.json'));
    assert.deepEqual(
      result.targets.map((t: any) => [t.id, t.scaling]),
      [
        ['infernode-ws-t2', { threads: 2, processes: 1, servedThreads: [2] }],
        ['infernode-ws-p2', { threads: 1, processes: 2, servedThreads: [1, 1] }],
      ],
    );
    for (const t of result.targets) {
      assertLevel(t.levels[0], 'concurrency', 2);
      assert.ok(t.levels[0].summary.server.requests > 0);
      assert.ok(t.levels[0].summary.cpu.server > 0);
    }
    // The two servers' statistics, summed, count what the generator completed, give or take the
    // requests in flight at the first and last boundary: none missing, none counted twice. Each
    // server's statistics are read at its own moment, so at each of the two boundaries each of the
    // two reads can be off by up to the 2 requests in flight: 2 x 2 x 2 (a CI run saw 5).
    const p2 = result.targets[1].levels[0];
    const completed = p2.windows.reduce((n: number, w: any) => n + w.requests, 0);
    const served = p2.windows.reduce((n: number, w: any) => n + w.server.successCount, 0);
    assert.ok(Math.abs(served - completed) <= 8, `${served} served, ${completed} completed`);
  });
});
