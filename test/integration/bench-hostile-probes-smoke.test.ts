// bench:hostile-probes end to end, briefly: the framing probe against a spawned infernode on the
// node:http front end (which runs on every Node). Asserts what the run prints and writes, and that
// no malformed chunked body gets a second response (issue 33, defect 3).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { it } from 'node:test';
import { DIST } from '../helpers/paths.js';

void it('bench:hostile-probes --probe framing prints and writes one line per case', async () => {
  const out = await mkdtemp(path.join(tmpdir(), 'hostile-probes-'));
  try {
    const script = path.join(DIST, 'bench', 'cli.js');
    const args = ['hostile-probes', '--front-end', 'node', '--probe', 'framing', '--out-dir', out];
    const { stdout } = await promisify(execFile)(process.execPath, [script, ...args], {
      timeout: 20_000,
    });
    const [dir, ...others] = await readdir(out);
    assert.deepEqual(others, [], 'one run directory');
    assert.match(dir ?? '', /-hostile-probes$/);
    const written = await readFile(path.join(out, dir ?? '', 'results.jsonl'), 'utf8');
    const lines = written.trim().split('\n');
    assert.deepEqual(stdout.trim().split('\n').slice(0, -1), lines, 'stdout has the same lines');
    const [command, ...cases] = lines.map((l) => JSON.parse(l));
    assert.match(command.command, /cli\.js hostile-probes --front-end node --probe framing/);
    assert.ok(cases.length >= 8, `${cases.length} cases`);
    for (const c of cases) {
      assert.equal(c.probe, 'framing');
      assert.equal(c.frontEnd, 'node-http');
      assert.equal(c.closedByServer, true, `${c.case}: the connection closes`);
      if (c.malformed) assert.deepEqual(c.statuses, [400], `${c.case}: one 400, nothing more`);
      else assert.equal(c.responses, 2, `${c.case}: both requests answered`);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
