// `infernode-bench cache` end to end, briefly: two real servers (no cache, and a local cache), the
// real load generator sending 90 % repeated inputs at 2 in flight with 0.15 s windows. Asserts the
// shape of the result and that the cached server counted hits, never the speed.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { CacheResult } from '../../bench/cache/cache-result.js';
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

function run(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(DIST, 'bench', 'cli.js'), 'cache', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

void describe('bench cache (npm run bench:cache)', { skip: toolingSkipped('bench') }, () => {
  void it('measures an uncached and a cached server at a hit ratio and writes the rows', async () => {
    // Only `simple` in the repository: each server starts one model.
    const repo = tempDir('bench-cache-repo-');
    cpSync(path.join(MODEL_REPOSITORY, 'simple'), path.join(repo, 'simple'), { recursive: true });
    const out = tempDir('bench-cache-out-');
    const r = await run([
      '-m',
      'simple',
      '--model-repository',
      repo,
      '--hit-ratios',
      '0.9',
      '--concurrency',
      '2',
      '-p',
      '150',
      '-r',
      '3',
      '--cache-config',
      'local,size=1048576',
      '--out-dir',
      out,
      '--no-publish',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const [dir] = readdirSync(out);
    assert.ok(dir !== undefined && dir.endsWith('-cache'), `a run directory in ${out}`);
    const result = JSON.parse(
      readFileSync(path.join(out, dir, 'result.json'), 'utf8'),
    ) as CacheResult;
    assert.equal(result.schema, 'infernode-bench-response-cache/1');
    assert.equal(result.transport, 'HTTP binary');
    assert.deepEqual(
      result.rows.map((x) => [x.cache, x.hitRatio, x.concurrency]),
      [
        ['none', 0.9, 2],
        ['local,size=1048576', 0.9, 2],
      ],
    );
    const [none, local] = result.rows;
    for (const row of result.rows) {
      assert.equal(row.errors, 0);
      assert.ok(row.reqPerSec > 0 && row.p50Ms > 0 && row.p50Ms <= row.p99Ms);
    }
    assert.equal(none?.serverHits, 0, 'no cache, no hits');
    assert.ok((local?.serverHits ?? 0) > 0, 'the cached server answered repeats from its cache');
    assert.match(r.stderr + r.stdout, /Cache hit count: \d+, Cache hit latency: \d+ usec/);
  });
});
