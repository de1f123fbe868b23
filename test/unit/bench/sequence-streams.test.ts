// The streams bench's pure parts: the stream-count search walk, the sequences a stream's cursor
// cuts from the speech clips (flags, ids, wrap-around), and the published section and CSV.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceIds, StreamCursor, readTape } from '../../../bench/streams/speech-tape.js';
import { streamsCsv, streamsSection } from '../../../bench/report/sequence-streams-report.js';
import { searchMaxStreams } from '../../../bench/streams/stream-search.js';
import {
  STREAMS_SCHEMA,
  type StreamProbe,
  type StreamSearch,
  type StreamsResult,
} from '../../../bench/streams/streams-result.js';

const threshold = (limit: number) => async (n: number) => n <= limit;

void test('the search doubles to the first failure, then bisects to within the resolution', async () => {
  const out = await searchMaxStreams(
    { start: 8, max: 4096, resolution: 0.1 },
    threshold(100),
    (ok) => ok,
  );
  const counts = out.points.map((p) => p.streams);
  assert.deepEqual(counts.slice(0, 6), [8, 16, 32, 64, 128, 96]);
  assert.ok(out.sustained <= 100 && out.sustained >= 91, `sustained ${out.sustained}`);
  const firstFail = Math.min(...out.points.filter((p) => !p.passed).map((p) => p.streams));
  assert.ok(firstFail - out.sustained <= Math.max(1, Math.floor(0.1 * out.sustained)));
});

void test('the search bisects below its start when the start fails, and stops at max', async () => {
  const low = await searchMaxStreams(
    { start: 8, max: 64, resolution: 0 },
    threshold(3),
    (ok) => ok,
  );
  assert.equal(low.sustained, 3);
  const none = await searchMaxStreams(
    { start: 8, max: 64, resolution: 0 },
    threshold(0),
    (ok) => ok,
  );
  assert.equal(none.sustained, 0);
  const capped = await searchMaxStreams(
    { start: 8, max: 50, resolution: 0 },
    threshold(1000),
    (ok) => ok,
  );
  assert.equal(capped.sustained, 50);
  assert.deepEqual(
    capped.points.map((p) => p.streams),
    [8, 16, 32, 50],
  );
});

void test('a stream cursor cuts whole clips into sequences with start and end flags', () => {
  const tape = readTape();
  const ids = new SequenceIds(1000);
  const cursor = new StreamCursor(tape, ids, 0);
  const first = tape[0]?.length ?? 0;
  const steps = Array.from({ length: first + 2 }, () => cursor.next());
  assert.equal(steps[0]?.start, true);
  assert.equal(steps[0]?.sequenceId, 1000);
  assert.equal(steps.slice(0, first).filter((s) => s.end).length, 1);
  assert.equal(steps[first - 1]?.end, true);
  assert.ok(steps.slice(1, first).every((s) => !s.start && s.sequenceId === 1000));
  // The next clip is a new sequence under the next id.
  assert.equal(steps[first]?.start, true);
  assert.equal(steps[first]?.sequenceId, 1001);
  assert.equal(steps[first]?.chunk, tape[1]?.[0]);
  assert.ok(steps.every((s) => s.chunk.byteLength === 2048));
});

void test('closing a stream ends its open sequence on the next chunk', () => {
  const tape = readTape();
  const cursor = new StreamCursor(tape, new SequenceIds(1), 5);
  cursor.next();
  assert.equal(cursor.inSequence, true);
  const last = cursor.next(true);
  assert.equal(last.end, true);
  assert.equal(cursor.inSequence, false);
  // Stream 5 starts at clip 5 mod 3 = 2, 35 chunks in.
  assert.equal(new StreamCursor(tape, new SequenceIds(1), 5).next().chunk, tape[2]?.[35]);
});

const probeAt = (streams: number, passed: boolean, p99Ms: number): StreamProbe => ({
  streams,
  passed,
  latency: { count: 100, p50Ms: 3, p90Ms: 5, p99Ms, maxMs: p99Ms + 1, meanMs: 3.5 },
  stepsPerSecond: streams * 31.25,
  errors: 0,
  firstError: null,
  serverCores: 1.25,
  loadCores: 0.1,
  otherCores: 0.02,
  server: null,
  attempt: 1,
});

void test('the published section reads the sustained counts, the ratio and the 10x verdict', () => {
  const search = (id: string, label: string, pass: number, fail: number): StreamSearch => ({
    id,
    label,
    config: null,
    sustained: pass,
    probes: [probeAt(pass, true, 20), probeAt(fail, false, 300)],
  });
  const result: StreamsResult = {
    schema: STREAMS_SCHEMA,
    command: 'npm run bench:streams',
    startedAt: '2026-11-25T18:00:00.000Z',
    machine: {
      cpuModel: 'cpu',
      cpus: 2,
      memoryBytes: 1,
      os: 'linux',
      arch: 'x64',
      node: 'v20',
      onnxruntimeNode: '1.30.0',
      infernode: '0.1.0',
      commit: 'abc',
      dirty: false,
    },
    periodMs: 32,
    warmupMs: 2000,
    measureMs: 8000,
    connections: 8,
    p99LimitMs: 32,
    naive: search('naive', 'naive loop', 100, 128),
    served: [search('oldest', 'oldest', 64, 72), search('direct', 'direct', 1200, 1300)],
    compute: [{ model: 'wrapped', batch: 64, msPerRun: 3, usPerRow: 47 }],
  };
  const md = streamsSection(result, 'bench/results/sequence-streams.json').join('\n');
  assert.match(md, /\| oldest +\| +64 \| +3\.0 \| +20\.0 \| +2,000 \|/);
  assert.match(md, /0\.64×/);
  assert.match(md, /oldest:\*\* not met \(64 vs 100, 0\.6×\)/);
  assert.match(md, /direct:\*\* met \(1200 vs 100, 12\.0×\)/);
  // 1.25 cores over 2,000 steps/s: 625 µs of server CPU per step.
  assert.match(md, /\| 625 \|/);
  const csv = streamsCsv(result).trim().split('\n');
  assert.equal(csv.length, 1 + 6);
  assert.match(csv[1] ?? '', /^oldest,64,true,1,100,3\.00,/);
});
