// The per-request overhead comparison's rendering: where it is published, the verdict on each of
// the issue's targets, the server CPU per 1,000 req/s, and the stage table of a traced level.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cpuPerKiloTable,
  isOverheadRun,
  overheadFileName,
  overheadSections,
  overheadVerdicts,
} from '../../../bench/report/overhead-table.js';
import { publishedName } from '../../../bench/report/publish.js';
import { stageTable } from '../../../bench/report/stage-report.js';
import { StageRecorder } from '../../../src/trace/stage-recorder.js';
import { comparisonFixture, overheadFixture } from './result-fixture.js';

void describe('overhead report', () => {
  void it('publishes a run with the one-thread naive server per model, batch and Node major', () => {
    const run = overheadFixture(1);
    assert.ok(isOverheadRun(run));
    assert.ok(!isOverheadRun(comparisonFixture()));
    const major = /^v?(\d+)/.exec(run.machine.node)?.[1];
    assert.equal(overheadFileName(run), `overhead-mlp-b1-node${major}.json`);
    assert.equal(publishedName(run), overheadFileName(run));
    assert.equal(publishedName(comparisonFixture()), 'latest.json');
  });

  void it('gives a verdict on each target the run measured', () => {
    const verdicts = overheadVerdicts(overheadFixture(1));
    assert.equal(verdicts.length, 3);
    assert.match(verdicts[0] ?? '', /c=1: p50 at most 1\.3× .* \(met\)\.$/);
    assert.match(verdicts[1] ?? '', /ceiling's req\/s — 1\.05× \(met\)\.$/);
    assert.match(verdicts[2] ?? '', /naive server's req\/s — 2\.10× \(met\); p99 .* \(met\)\.$/);
    const batched = overheadVerdicts(overheadFixture(32));
    assert.equal(batched.length, 4);
    assert.match(
      batched[3] ?? '',
      /batch 32, c=8: at least 0\.7× raw ORT's rows\/s — 0\.50× \(not met\)/,
    );
  });

  void it('divides the server cores by the req/s, per 1,000', () => {
    const table = cpuPerKiloTable(overheadFixture(1));
    assert.deepEqual(table.headers.slice(1), [
      'naive Fastify 1 thread cores per 1k req/s',
      'uWS JSON-parse ceiling cores per 1k req/s',
      'infernode HTTP JSON cores per 1k req/s',
      'infernode HTTP binary cores per 1k req/s',
    ]);
    // The fixture's server used 0.9 cores in every window: at 900 req/s that is 1 core per 1k.
    const c1 = table.rows.find((r) => r[0] === 'concurrency 1');
    assert.equal(c1?.[3], '1.000');
  });

  void it("renders a traced level's stages, and a section with its table", () => {
    const recorder = new StageRecorder();
    const trace = recorder.begin(0);
    trace.mark('parse', 20_000);
    trace.mark('send', 50_000);
    recorder.record(trace);
    const run = overheadFixture(1);
    const traced = {
      ...run,
      targets: run.targets.map((t) =>
        t.id !== 'infernode'
          ? t
          : { ...t, levels: t.levels.map((l) => ({ ...l, stages: recorder.table() })) },
      ),
    };
    const table = stageTable(traced);
    assert.ok(table !== null);
    assert.equal(stageTable(run), null);
    assert.deepEqual(table.rows.find((r) => r[0] === 'parse')?.slice(1, 3), ['20.0', '20.0']);
    assert.deepEqual(table.rows.find((r) => r[0] === 'send')?.slice(1, 3), ['30.0', '30.0']);
    assert.deepEqual(table.rows.find((r) => r[0] === 'validate')?.slice(1, 3), ['–', '–']);
    const section = overheadSections([{ result: traced, source: 'bench/results/x.json' }]).join(
      '\n',
    );
    assert.match(section, /## Per-request overhead on `mlp`, batch 1/);
    assert.match(section, /\| parse /);
  });
});
