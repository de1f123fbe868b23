// The GPU metric flags as the command line parses them (parseArgs): Triton's defaults, the values
// each takes, the exact refusal of a bad one, and the warning when metrics are off.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_OPTIONS, helpText, parseArgs } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]) => parseArgs([REPO, ...flags]);

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('GPU metric flags', () => {
  void it("default to Triton's: GPU metrics on, read every 2000 ms", () => {
    const { options, warnings } = parse();
    assert.equal(options.allowGpuMetrics, true);
    assert.equal(options.metricsIntervalMs, 2000);
    assert.equal(DEFAULT_OPTIONS.allowGpuMetrics, true);
    assert.equal(DEFAULT_OPTIONS.metricsIntervalMs, 2000);
    assert.deepEqual(warnings, []);
  });

  void it('--allow-gpu-metrics: a boolean, a bare flag meaning true', () => {
    assert.equal(parse('--allow-gpu-metrics=false').options.allowGpuMetrics, false);
    assert.equal(parse('--allow-gpu-metrics', 'off').options.allowGpuMetrics, false);
    assert.equal(parse('--allow-gpu-metrics', '--metrics-port=9').options.allowGpuMetrics, true);
    refuses(
      ['--allow-gpu-metrics=sometimes'],
      "--allow-gpu-metrics: expected true or false, got 'sometimes'",
    );
  });

  void it('--metrics-interval-ms: whole milliseconds from 1 to a day', () => {
    assert.equal(parse('--metrics-interval-ms=500').options.metricsIntervalMs, 500);
    assert.equal(parse('--metrics-interval-ms', '1').options.metricsIntervalMs, 1);
    refuses(['--metrics-interval-ms=0'], '--metrics-interval-ms: expected an integer >= 1, got 0');
    for (const bad of ['2s', '-5', '1.5', '']) {
      refuses(
        [`--metrics-interval-ms=${bad}`],
        `--metrics-interval-ms: expected an integer between 0 and 86400000, got '${bad}'`,
      );
    }
    refuses(
      ['--metrics-interval-ms=86400001'],
      "--metrics-interval-ms: expected an integer between 0 and 86400000, got '86400001'",
    );
  });

  void it('are noted as ignored when metrics are off', () => {
    assert.deepEqual(
      parse('--allow-metrics=false', '--allow-gpu-metrics=true', '--metrics-interval-ms=100')
        .warnings,
      [
        '--allow-gpu-metrics is ignored with --allow-metrics=false',
        '--metrics-interval-ms is ignored with --allow-metrics=false',
      ],
    );
  });

  void it('appear in --help', () => {
    assert.match(helpText(), /--allow-gpu-metrics +Export GPU metrics/);
    assert.match(helpText(), /--allow-cpu-metrics +Export host CPU metrics/);
    assert.match(helpText(), /--metrics-interval-ms +Milliseconds between GPU, CPU and per-thread/);
  });
});

void describe('CPU metric flag', () => {
  void it("--allow-cpu-metrics: Triton's, on by default, a boolean, ignored without metrics", () => {
    assert.equal(DEFAULT_OPTIONS.allowCpuMetrics, true);
    assert.equal(parse().options.allowCpuMetrics, true);
    assert.equal(parse('--allow-cpu-metrics=false').options.allowCpuMetrics, false);
    assert.equal(parse('--allow-cpu-metrics', '--metrics-port=9').options.allowCpuMetrics, true);
    refuses(
      ['--allow-cpu-metrics=maybe'],
      "--allow-cpu-metrics: expected true or false, got 'maybe'",
    );
    assert.deepEqual(parse('--allow-metrics=false', '--allow-cpu-metrics=false').warnings, [
      '--allow-cpu-metrics is ignored with --allow-metrics=false',
    ]);
  });
});
