// The streams bench's pure parts: the stream-count search walk, and the sequences a stream's
// cursor cuts from the speech clips (flags, ids, wrap-around).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceIds, StreamCursor, readTape } from '../../../bench/streams/speech-tape.js';
import { searchMaxStreams } from '../../../bench/streams/stream-search.js';

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
