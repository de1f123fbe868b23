// scripts/run-tests.mjs, `npm test`'s runner, on the fixture test files of test/fixtures/run-tests:
// unit files run two at a time, then the serving files two at a time, then the run-alone list one at
// a time; every run always goes, the combined summary counts every test, and a failure in any run
// fails the whole.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, TEST_FIXTURES } from '../../helpers/paths.js';

const RUNNER = path.join(REPO_ROOT, 'scripts', 'run-tests.mjs');
const FIXTURES = path.join(TEST_FIXTURES, 'run-tests', 'test');
const unit = (name: string): string => path.join(FIXTURES, 'unit', `${name}.mjs`);
const integration = (name: string): string => path.join(FIXTURES, 'integration', `${name}.mjs`);

interface Outcome {
  status: number | null;
  out: string;
  /** The counts of the last summary printed (`ℹ tests N` or `# tests N`). */
  last: Record<string, number>;
}

function runTests(files: string[]): Outcome {
  const meetDir = mkdtempSync(path.join(os.tmpdir(), 'infernode-run-tests-'));
  try {
    const r = spawnSync(process.execPath, [RUNNER, ...files], {
      encoding: 'utf8',
      // Without this test's own NODE_TEST_CONTEXT, which makes a nested `node --test` run nothing.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, RUN_TESTS_MEET_DIR: meetDir },
      timeout: 60_000,
    });
    const last: Record<string, number> = {};
    for (const line of r.stdout.split('\n')) {
      const m = /^(?:ℹ|#) (tests|pass|fail|skipped) (\d+)$/.exec(line);
      if (m !== null) last[m[1] as string] = Number(m[2]);
    }
    return { status: r.status, out: `${r.stdout}\n${r.stderr}`, last };
  } finally {
    rmSync(meetDir, { recursive: true, force: true });
  }
}

void describe('scripts/run-tests.mjs', () => {
  void it('runs unit files two at a time, then the rest, and sums the summaries', () => {
    const r = runTests([unit('meet-a'), unit('meet-b'), integration('passes')]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /# unit tests: 2 file\(s\), 2 at a time/);
    assert.match(
      r.out,
      /# conformance, integration and serving unit tests: 1 file\(s\), 2 at a time/,
    );
    assert.doesNotMatch(r.out, /# tests that run alone/, 'no run without files');
    assert.match(
      r.out,
      /all runs: unit tests exited 0, conformance, integration and serving unit tests exited 0/,
    );
    assert.deepEqual(r.last, { tests: 5, pass: 4, fail: 0, skipped: 1 }, r.out);
  });

  void it('runs integration files two at a time, and a run-alone file last, alone', () => {
    const files = [integration('shutdown-drain'), integration('meet-c'), integration('meet-d')];
    const r = runTests([unit('meet-a'), unit('meet-b'), ...files]);
    assert.equal(r.status, 0, r.out);
    assert.match(
      r.out,
      /# conformance, integration and serving unit tests: 2 file\(s\), 2 at a time/,
    );
    assert.match(r.out, /# tests that run alone: 1 file\(s\), 1 at a time/);
    const alone = r.out.indexOf('# tests that run alone:');
    const ran = r.out.search(/(?:ok \d+ -|✔) a file of the run-alone list/);
    assert.ok(alone >= 0 && ran > alone, `it passed, in the last run:\n${r.out}`);
    assert.match(
      r.out,
      /all runs: unit tests exited 0, conformance, integration and serving unit tests exited 0, tests that run alone exited 0/,
    );
    assert.deepEqual(r.last, { tests: 5, pass: 5, fail: 0, skipped: 0 }, r.out);
  });

  void it('runs a unit file that listens on a port with the integration tests', () => {
    const r = runTests([unit('meet-a'), unit('meet-b'), unit('serves'), integration('passes')]);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /# unit tests: 2 file\(s\), 2 at a time/);
    assert.match(
      r.out,
      /# conformance, integration and serving unit tests: 2 file\(s\), 2 at a time/,
    );
    const serial = r.out.indexOf('# conformance, integration and serving unit tests:');
    const served = r.out.search(/(?:ok \d+ -|✔) a unit test that listens on a port/);
    assert.ok(serial >= 0 && served > serial, `it passed, in the second run:\n${r.out}`);
    assert.deepEqual(r.last, { tests: 6, pass: 5, fail: 0, skipped: 1 }, r.out);
  });

  void it('fails when an integration test fails, after a passing unit run', () => {
    const r = runTests([unit('meet-a'), unit('meet-b'), integration('fails')]);
    assert.equal(r.status, 1, r.out);
    assert.match(
      r.out,
      /unit tests exited 0, conformance, integration and serving unit tests exited 1/,
    );
    assert.deepEqual(r.last, { tests: 3, pass: 2, fail: 1, skipped: 0 }, r.out);
  });

  void it('fails when a unit test fails, and still runs the integration tests', () => {
    const r = runTests([unit('fails'), integration('passes')]);
    assert.equal(r.status, 1, r.out);
    assert.match(
      r.out,
      /unit tests exited 1, conformance, integration and serving unit tests exited 0/,
    );
    assert.deepEqual(r.last, { tests: 4, pass: 2, fail: 1, skipped: 1 }, r.out);
  });
});
