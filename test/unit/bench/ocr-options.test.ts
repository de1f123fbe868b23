// The OCR bench's command line: which server set-ups run in which order (the bundled configs, a
// --config-name, or both with --compare-gpu), where the JSON goes, and the refusals.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseOcrOptions } from '../../../bench/ocr/ocr-options.js';
import { UsageError } from '../../../bench/options/usage-error.js';

void describe('OCR bench options', () => {
  void it('runs the bundled configs alone by default, into bench/out, and publishes', () => {
    const o = parseOcrOptions([]);
    assert.deepEqual(o.configNames, [null]);
    assert.deepEqual(o.concurrency, [1, 4]);
    assert.equal(o.durationMs, 20_000);
    assert.equal(o.outDir, undefined);
    assert.equal(o.publish, true);
  });

  void it('--compare-gpu runs the bundled configs, then webgpu (or --config-name)', () => {
    assert.deepEqual(parseOcrOptions(['--compare-gpu']).configNames, [null, 'webgpu']);
    assert.deepEqual(parseOcrOptions(['--compare-gpu', '--config-name', 'cuda']).configNames, [
      null,
      'cuda',
    ]);
    assert.deepEqual(parseOcrOptions(['--config-name', 'webgpu']).configNames, ['webgpu']);
  });

  void it('--out-dir is resolved once; --no-publish leaves bench/results alone', () => {
    const o = parseOcrOptions(['--out-dir', 'some/where', '--no-publish']);
    assert.equal(o.outDir, path.resolve('some/where'));
    assert.equal(o.publish, false);
  });

  void it('refuses a config name that is a path, an empty --out-dir and unknown flags', () => {
    for (const argv of [
      ['--config-name', '../webgpu'],
      ['--config-name', 'webgpu.pbtxt/x'],
      ['--out-dir', ''],
      ['--compare-cuda'],
      ['--concurrency', '0'],
    ]) {
      assert.throws(() => parseOcrOptions(argv), UsageError, argv.join(' '));
    }
  });
});
