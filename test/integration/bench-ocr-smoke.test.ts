// The OCR bench end to end, briefly: `bench:ocr` starts its own infernode with the OCR models, runs
// one client for one second and reads every image right. Asserts what it prints, never its speed.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ocrPackagesMissing } from '../../bench/model/ocr-packages.js';
import { textFontMissing } from '../../bench/model/text-image.js';
import { DIST } from '../helpers/paths.js';
import { toolingSkipped } from '../helpers/tooling-suites.js';

const SKIP = toolingSkipped('bench') || (textFontMissing() ?? ocrPackagesMissing());

void describe('npm run bench:ocr', { skip: SKIP }, () => {
  void it('reads the rendered images through the server and reports images/s', async () => {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'infernode-ocr-smoke-'));
    const child = spawn(
      process.execPath,
      [
        path.join(DIST, 'bench', 'cli.js'),
        'ocr',
        '--concurrency=1',
        '--duration-secs=1',
        '--warmup=1',
        '--no-publish',
        `--out-dir=${outDir}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, out);
    assert.match(
      out,
      /^ocr \(cpu\): 1 client\(s\): \d+\.\d\d images\/s, p50 \d+ ms, p99 \d+ ms, 0 misread, 0 errors$/m,
    );
    // --no-publish: the result goes to --out-dir only, never to bench/results.
    const written = JSON.parse(await readFile(path.join(outDir, 'ocr.json'), 'utf8')) as {
      schema: string;
    };
    assert.equal(written.schema, 'infernode-bench-ocr/2');
    assert.doesNotMatch(out, /^wrote .*bench\/results/m);
    await rm(outDir, { recursive: true, force: true });
  });

  void it('refuses a bad command line with exit code 2', async () => {
    const child = spawn(
      process.execPath,
      [path.join(DIST, 'bench', 'cli.js'), 'ocr', '--concurrency=0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /--concurrency: expected integers 1\.\.64, got "0"/);
  });
});
