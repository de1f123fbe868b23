// The log settings' pure parts: decoding an update (HTTP JSON and gRPC map) with Triton's refusals,
// which levels a LogControl lets through, the line formats, and ORT's threshold per setting.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ortLogSeverity } from '../../../src/execution/onnxruntime/ort-log-level.js';
import { LogControl } from '../../../src/logging/log-control.js';
import { renderRecord } from '../../../src/logging/log-line.js';
import { decodeLogSettingsGrpc, decodeLogSettingsJson } from '../../../src/logging/log-settings.js';

void describe('log settings', () => {
  void it('decodes a JSON update; null and unknown names change nothing', () => {
    assert.deepEqual(
      decodeLogSettingsJson({ log_info: false, log_verbose_level: 2, log_error: null, other: 1 }),
      { log_info: false, log_verbose_level: 2 },
    );
    assert.throws(() => decodeLogSettingsJson({ log_file: 'x' }), { code: 'UNSUPPORTED' });
    assert.throws(() => decodeLogSettingsJson({ log_format: 'xml' }), /got "xml"/);
  });

  void it('decodes a gRPC map, refusing a value in the wrong member', () => {
    assert.deepEqual(
      decodeLogSettingsGrpc({
        log_warning: { parameter_choice: 'bool_param', bool_param: false },
        log_format: { parameter_choice: 'string_param', string_param: 'ISO8601' },
      }),
      { log_warning: false, log_format: 'ISO8601' },
    );
    assert.throws(
      () => decodeLogSettingsGrpc({ log_verbose_level: { parameter_choice: 'bool_param' } }),
      /expect uint32 for 'log_verbose_level', got bool_param/,
    );
  });

  void it('a LogControl passes each level by its own setting and tells listeners', () => {
    const c = new LogControl({ log_warning: false });
    assert.deepEqual(
      [10, 20, 30, 40, 50, 60].map((l) => c.enabled(l)),
      [false, false, true, false, true, true],
    );
    const seen: number[] = [];
    c.onChange((s) => seen.push(s.log_verbose_level));
    c.update({ log_verbose_level: 2 });
    assert.deepEqual([c.enabled(10), c.enabled(20)], [true, true]);
    assert.deepEqual(seen, [2]);
  });

  void it("renders Triton's line formats, escaping what could forge a line", () => {
    const json = JSON.stringify({
      level: 40,
      time: '2026-11-27T22:36:35.801Z',
      pid: 7,
      name: 'infernode',
      model: 'a b',
      n: 3,
      msg: 'bad\nline',
    });
    assert.equal(
      renderRecord(json, 'default'),
      'W1127 22:36:35.801000 7 infernode] bad\\nline model="a b" n=3\n',
    );
    assert.equal(
      renderRecord(json, 'ISO8601'),
      '2026-11-27T22:36:35Z W 7 infernode] bad\\nline model="a b" n=3\n',
    );
    assert.equal(renderRecord(json, 'json'), json);
  });

  void it("maps the server's settings to ONNX Runtime's severity", () => {
    const at = (v: number, e = true) => ortLogSeverity({ log_verbose_level: v, log_error: e });
    assert.deepEqual([at(0), at(0, false), at(1), at(2), at(3)], [3, 4, 2, 1, 0]);
  });
});
