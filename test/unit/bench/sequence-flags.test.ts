// perf_analyzer's sequence flags: their parsing (defaults, ranges, errors naming what arrived),
// the id allocation across generator threads (disjoint, wrapping), sequence lengths within the
// variation, and the HTTP placeholders patched into requests the server reads as JSON.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HttpSequenceRequests,
  patchSequence,
  SEQUENCE_PLACEHOLDER,
  sequenceSites,
} from '../../../bench/load/http-sequence-requests.js';
import { buildHttpRequest } from '../../../bench/load/http-request.js';
import {
  SequenceIdAllocator,
  SequenceWalker,
  sequenceLengths,
} from '../../../bench/load/sequence-ids.js';
import { binaryRequestBody, jsonRequestBody } from '../../../bench/model/request-body.js';
import { parseBenchFlags } from '../../../bench/options/parse-flags.js';
import { MAX_SEQUENCE_ID, parseSequenceIdRange } from '../../../bench/options/sequence-options.js';
import { UsageError } from '../../../bench/options/usage-error.js';

const sequenceOf = (...args: string[]) =>
  parseBenchFlags(['-m', 'vad', ...args], 'bench').options.sequence;

void describe('sequence flags', () => {
  void it("default to perf_analyzer's values and are not explicit", () => {
    const s = sequenceOf();
    assert.deepEqual(
      { ...s, idRange: { ...s.idRange } },
      {
        length: 20,
        lengthVariation: 20,
        numSequences: 4,
        idRange: { start: 1, end: MAX_SEQUENCE_ID },
        explicit: false,
      },
    );
  });

  void it('parse every flag, in both spellings', () => {
    const s = sequenceOf(
      '--sequence-length',
      '50',
      '--sequence-length-variation=0',
      '--num-of-sequences',
      '8',
      '--sequence-id-range=100:199',
    );
    assert.equal(s.length, 50);
    assert.equal(s.lengthVariation, 0);
    assert.equal(s.numSequences, 8);
    assert.deepEqual({ ...s.idRange }, { start: 100, end: 199 });
    assert.equal(s.explicit, true);
  });

  void it('refuse bad values, naming the flag and what arrived', () => {
    assert.throws(
      () => sequenceOf('--sequence-length', '0'),
      /--sequence-length: expected an integer >= 1, got "0"/,
    );
    assert.throws(
      () => sequenceOf('--sequence-length-variation', '150'),
      /--sequence-length-variation: expected a percentage 0..100, got "150"/,
    );
    assert.throws(() => sequenceOf('--num-of-sequences', '1.5'), UsageError);
    assert.throws(
      () => parseBenchFlags(['-m', 'vad', '--sequence-length', '5'], 'compare'),
      /unknown flag/,
    );
  });

  void it('read an id range as start[:end], refusing 0, reversed and oversized ranges', () => {
    assert.deepEqual(parseSequenceIdRange('7'), { start: 7, end: MAX_SEQUENCE_ID });
    assert.deepEqual(parseSequenceIdRange('7:9'), { start: 7, end: 9 });
    assert.throws(() => parseSequenceIdRange('0:9'), /within 1\.\.9007199254740991, got "0:9"/);
    assert.throws(() => parseSequenceIdRange('9:7'), /with end >= start, got "9:7"/);
    assert.throws(() => parseSequenceIdRange('1:9007199254740992'), UsageError);
    assert.throws(() => parseSequenceIdRange('a:b'), /whole numbers, got "a:b"/);
    assert.throws(() => parseSequenceIdRange('1:2:3'), UsageError);
  });
});

void describe('sequence id allocation', () => {
  void it('gives each generator thread its own ids and wraps at the end of the range', () => {
    const range = { start: 10, end: 16 };
    const take = (thread: number, n: number): number[] => {
      const a = new SequenceIdAllocator(range, thread, 3);
      return Array.from({ length: n }, () => a.take());
    };
    assert.deepEqual(take(0, 4), [10, 13, 16, 10]);
    assert.deepEqual(take(1, 4), [11, 14, 11, 14]);
    assert.deepEqual(take(2, 3), [12, 15, 12]);
    assert.throws(
      () => new SequenceIdAllocator({ start: 1, end: 2 }, 0, 3),
      /fewer ids than the 3/,
    );
  });

  void it('walks sequences with start on the first request and end on the last', () => {
    const walker = new SequenceWalker(
      new SequenceIdAllocator({ start: 1, end: 100 }, 0, 1),
      () => 3,
    );
    const steps = Array.from({ length: 7 }, () => walker.next());
    assert.deepEqual(
      steps.map((s) => `${s.id}${s.start ? 'S' : ''}${s.end ? 'E' : ''}`),
      ['1S', '1', '1E', '2S', '2', '2E', '3S'],
    );
  });

  void it('draws lengths within the variation, reproducibly from the seed', () => {
    const a = sequenceLengths({ length: 20, lengthVariation: 20 }, 5);
    const b = sequenceLengths({ length: 20, lengthVariation: 20 }, 5);
    const drawn = Array.from({ length: 500 }, () => a());
    assert.deepEqual(
      drawn.slice(0, 20),
      Array.from({ length: 20 }, () => b()),
    );
    assert.equal(Math.min(...drawn), 16);
    assert.equal(Math.max(...drawn), 24);
    const fixed = sequenceLengths({ length: 1, lengthVariation: 100 }, 1);
    assert.ok(Array.from({ length: 50 }, () => fixed()).every((n) => n >= 1 && n <= 2));
  });
});

void describe('HTTP sequence placeholders', () => {
  const set = [{ name: 'audio', datatype: 'FP32' as const, shape: [1, 2], elements: [0.5, -0.5] }];

  void it('patch into JSON that reads back as the step, whatever the width of the id', () => {
    const body = Buffer.from(jsonRequestBody(set, SEQUENCE_PLACEHOLDER).body);
    const sites = sequenceSites(body);
    for (const step of [
      { id: 1, start: true, end: false },
      { id: 4242, start: false, end: true },
      { id: MAX_SEQUENCE_ID, start: true, end: true },
    ]) {
      const doc = JSON.parse(patchSequence(body, sites, step).toString('utf8')) as {
        parameters: Record<string, unknown>;
        inputs: unknown[];
      };
      assert.deepEqual(doc.parameters, {
        sequence_id: step.id,
        sequence_start: step.start,
        sequence_end: step.end,
      });
      assert.equal(doc.inputs.length, 1);
    }
  });

  void it('keep the binary extension header length and its binary_data_output', () => {
    const b = binaryRequestBody(set, SEQUENCE_PLACEHOLDER);
    const body = Buffer.from(b.body);
    const patched = patchSequence(body, sequenceSites(body), { id: 9, start: true, end: false });
    const header = JSON.parse(patched.subarray(0, b.inferenceHeaderLength).toString('utf8')) as {
      parameters: Record<string, unknown>;
    };
    assert.deepEqual(header.parameters, {
      sequence_id: 9,
      sequence_start: true,
      sequence_end: false,
      binary_data_output: true,
    });
    assert.equal(patched.length, body.length);
  });

  void it('give each connection of the closed loop its own sequence', () => {
    const request = buildHttpRequest(
      'h',
      1,
      '/v2/models/vad/infer',
      jsonRequestBody(set, SEQUENCE_PLACEHOLDER),
    );
    const source = new HttpSequenceRequests(
      [request],
      {
        options: { length: 2, lengthVariation: 0, idRange: { start: 1, end: 1000 } },
        threads: 2,
        seed: 1,
      },
      1,
    );
    const params = (b: Buffer): unknown => {
      const text = b.toString('utf8');
      return (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { parameters: unknown })
        .parameters;
    };
    const order = [0, 1, 0, 1, 0].map((slot) => params(source.next(slot)));
    assert.deepEqual(order, [
      { sequence_id: 2, sequence_start: true, sequence_end: false },
      { sequence_id: 4, sequence_start: true, sequence_end: false },
      { sequence_id: 2, sequence_start: false, sequence_end: true },
      { sequence_id: 4, sequence_start: false, sequence_end: true },
      { sequence_id: 6, sequence_start: true, sequence_end: false },
    ]);
  });

  void it('refuse a request without the placeholders', () => {
    assert.throws(
      () => sequenceSites(Buffer.from(jsonRequestBody(set).body)),
      /placeholder "sequence_id"/,
    );
  });
});
