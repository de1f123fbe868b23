// What the benches record when a server they started fails: infernode's error-level JSON log lines
// as `<model>: <msg>: <reason>`, and lines that are not JSON as they are; the rest is dropped.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverErrors } from '../../../bench/targets/server-process.js';

void describe('serverErrors', () => {
  void it("keeps infernode's error and fatal lines, with the model and the reason", () => {
    // As infernode logged them for a model whose config names an accelerator it does not know.
    const lines = [
      '{"level":50,"time":"2026-11-27T10:42:49.387Z","pid":1,"name":"infernode","model":"ocr_detector","code":"CONFIG_INVALID","reason":"unknown Execution Accelerator \'webgpu\' is requested for ocr_detector; expected one of tensorrt, cuda","msg":"model failed to load"}',
      '{"level":30,"time":"2026-11-27T10:42:49.388Z","pid":1,"name":"infernode","msg":"thread budget: per-session pools"}',
      '{"level":60,"time":"2026-11-27T10:42:49.389Z","pid":1,"name":"infernode","err":"failed to load \'ocr_detector\'; exiting (--exit-on-error=true)","msg":"start-up failed"}',
    ];
    assert.deepEqual(serverErrors(lines), [
      "ocr_detector: model failed to load: unknown Execution Accelerator 'webgpu' is requested for ocr_detector; expected one of tensorrt, cuda",
      "start-up failed: failed to load 'ocr_detector'; exiting (--exit-on-error=true)",
    ]);
  });

  void it('takes an error object by its message, and plain text lines as they are', () => {
    assert.deepEqual(
      serverErrors([
        '{"level":50,"err":{"type":"Error","message":"no adapter"},"msg":"session failed"}',
        'infernode: unknown flag --x; see --help',
        '  ',
        '42',
      ]),
      ['session failed: no adapter', 'infernode: unknown flag --x; see --help'],
    );
  });
});
