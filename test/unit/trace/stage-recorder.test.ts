// The stage recorder's arithmetic: each stage's time from the previous stamped stage, stages a
// request skipped left out (not counted as zero), the total, percentiles, and reset.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StageRecorder } from '../../../src/trace/stage-recorder.js';
import { STAGES } from '../../../src/trace/stage-trace.js';

function row(recorder: StageRecorder, stage: string) {
  const found = recorder.table().stages.find((r) => r.stage === stage);
  assert.ok(found, `no row ${stage}`);
  return found;
}

void describe('StageRecorder', () => {
  void it('times each stage from the previous stamped one, skipping unstamped stages', () => {
    const recorder = new StageRecorder();
    const trace = recorder.begin(1_000_000);
    trace.mark('parse', 1_010_000); // 10 µs
    trace.mark('validate', 1_015_000); // 5 µs
    // enqueue..resume not stamped: settle counts from validate.
    trace.mark('settle', 1_115_000); // 100 µs
    trace.mark('send', 1_120_000); // 5 µs
    recorder.record(trace);
    const table = recorder.table();
    assert.equal(table.requests, 1);
    assert.equal(table.stages.length, STAGES.length); // every stage after receive, plus total
    assert.equal(row(recorder, 'parse').p50Us, 10);
    assert.equal(row(recorder, 'validate').p50Us, 5);
    assert.equal(row(recorder, 'settle').p50Us, 100);
    assert.equal(row(recorder, 'send').p50Us, 5);
    assert.equal(row(recorder, 'enqueue').count, 0);
    assert.equal(row(recorder, 'total').p50Us, 120);
  });

  void it('summarizes many requests as mean, p50 and p99, and forgets them on reset', () => {
    const recorder = new StageRecorder();
    for (let i = 1; i <= 100; i++) {
      const trace = recorder.begin(0);
      trace.mark('parse', i * 1000); // i µs
      recorder.record(trace);
    }
    const parse = row(recorder, 'parse');
    assert.equal(parse.count, 100);
    assert.equal(parse.meanUs, 50.5);
    assert.equal(parse.p50Us, 51);
    assert.equal(parse.p99Us, 100);
    recorder.reset();
    assert.equal(recorder.table().requests, 0);
    assert.equal(row(recorder, 'parse').count, 0);
  });
});
