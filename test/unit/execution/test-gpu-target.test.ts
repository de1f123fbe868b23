// The test-only GPU stand-in's record: parsing, the overlap check, and the environment switch.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  overlappingSections,
  parseSections,
  testGpuRecordFile,
} from '../../../src/execution/onnxruntime/test-gpu-target.js';

void describe('test GPU target record', () => {
  void it('parses lines, and finds overlaps per device only', () => {
    const sections = parseSections(
      ['1 0 100 200 create', '2 0 200 300 run', '3 1 250 260 run', '4 0 290 310 run', ''].join(
        '\n',
      ),
    );
    assert.equal(sections.length, 4);
    assert.deepEqual(sections[0], {
      threadId: 1,
      device: 0,
      startNs: 100n,
      endNs: 200n,
      what: 'create',
    });
    const overlaps = overlappingSections(sections);
    assert.deepEqual(
      overlaps.map(([a, b]) => [a.threadId, b.threadId]),
      [[2, 4]],
    );
  });

  void it('a section inside a long one overlaps even after a short one ends', () => {
    const sections = parseSections('1 0 0 1000 run\n2 0 10 20 run\n3 0 30 40 run\n');
    assert.equal(overlappingSections(sections).length, 2);
  });

  void it('is on only when the variable names a file', () => {
    assert.equal(testGpuRecordFile({}), undefined);
    assert.equal(testGpuRecordFile({ INFERNODE_TEST_GPU_RECORD: '' }), undefined);
    assert.equal(testGpuRecordFile({ INFERNODE_TEST_GPU_RECORD: '/tmp/r' }), '/tmp/r');
  });
});
