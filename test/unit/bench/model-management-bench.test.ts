// The model-management benches' pure parts: the least-squares slope, /proc/<pid>/status parsing,
// the allocator list, and what the load/unload and reload-under-load results render to (CSVs,
// the RSS plot's axes, the RESULTS.md sections with their figures).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeHistogram,
  newHistogram,
  recordUs,
  summarize,
} from '../../../bench/measure/latency-histogram.js';
import { inspectorUrl } from '../../../bench/measure/inspector-gc.js';
import { linearFit } from '../../../bench/measure/linear-fit.js';
import { machineInfo } from '../../../bench/measure/machine-info.js';
import { parseProcStatus } from '../../../bench/measure/process-memory.js';
import { parseAllocators, resolveAllocator } from '../../../bench/model-management/allocators.js';
import {
  CYCLES_SCHEMA,
  type CycleCurve,
  type CyclesResult,
} from '../../../bench/model-management/cycles-result.js';
import {
  RELOAD_SCHEMA,
  type PhaseId,
  type PhaseResult,
  type ReloadResult,
} from '../../../bench/model-management/reload-result.js';
import {
  cyclesCsv,
  cyclesPlotModel,
  cyclesSection,
  peakRss,
  perCycle,
} from '../../../bench/report/model-cycles-report.js';
import { phasesCsv, reloadSection, reloadsCsv } from '../../../bench/report/reload-report.js';
import { UsageError } from '../../../bench/options/usage-error.js';

const MIB = 1024 * 1024;

void describe('linearFit', () => {
  void it('recovers slope and intercept of points on a line, with r² 1', () => {
    const fit = linearFit([1, 2, 3, 4, 5].map((x) => [x, 3 * x + 7] as const));
    assert.equal(fit.slope, 3);
    assert.equal(fit.intercept, 7);
    assert.equal(fit.r2, 1);
    assert.equal(fit.points, 5);
  });

  void it('gives slope 0 and r² 1 for a flat series, and r² < 1 for noise around a line', () => {
    assert.deepEqual(linearFit([0, 1, 2].map((x) => [x, 5] as const)), {
      slope: 0,
      intercept: 5,
      r2: 1,
      points: 3,
    });
    const noisy = linearFit([
      [0, 0],
      [1, 2],
      [2, 1],
      [3, 3],
    ]);
    assert.ok(Math.abs(noisy.slope - 0.8) < 1e-12, String(noisy.slope));
    assert.ok(noisy.r2 > 0 && noisy.r2 < 1);
  });

  void it('refuses fewer than two points and a single x', () => {
    assert.throws(() => linearFit([[1, 1]]), /at least 2 points/);
    assert.throws(
      () =>
        linearFit([
          [1, 1],
          [1, 2],
        ]),
      /same x/,
    );
  });
});

void describe('parseProcStatus', () => {
  void it('reads VmRSS, VmHWM (KiB) and Threads', () => {
    const text = [
      'Name:\tnode',
      'VmPeak:\t 1234568 kB',
      'VmHWM:\t  210000 kB',
      'VmRSS:\t  150000 kB',
      'Threads:\t12',
      '',
    ].join('\n');
    assert.deepEqual(parseProcStatus(text), {
      rssBytes: 150000 * 1024,
      peakRssBytes: 210000 * 1024,
      threads: 12,
    });
  });

  void it('returns null when a field is missing (a kernel thread has no VmRSS)', () => {
    assert.equal(parseProcStatus('Name:\tkthreadd\nThreads:\t1\n'), null);
  });
});

void describe('allocators', () => {
  void it('parses a list, drops repeats, and refuses unknown names', () => {
    assert.deepEqual(parseAllocators('glibc,jemalloc,glibc'), ['glibc', 'jemalloc']);
    assert.throws(() => parseAllocators('glibc,hoard'), UsageError);
    assert.throws(() => parseAllocators(''), UsageError);
  });

  void it('glibc adds nothing; the arena cap sets MALLOC_ARENA_MAX; the GC run turns the inspector on', () => {
    assert.deepEqual(resolveAllocator('glibc').env, {});
    assert.deepEqual(resolveAllocator('glibc-arenas-2').env, { MALLOC_ARENA_MAX: '2' });
    const gc = resolveAllocator('glibc-gc');
    assert.ok(gc.gcAfterUnload);
    assert.match(gc.env.NODE_OPTIONS ?? '', /--inspect=127\.0\.0\.1:0$/);
  });
});

function curve(allocator: 'glibc' | 'jemalloc', label: string, slopeBytes: number): CycleCurve {
  const samples = Array.from({ length: 10 }, (_, i) => ({
    cycle: i + 1,
    loadedRssBytes: 150 * MIB + i * slopeBytes,
    loadedThreads: 14,
    rssBytes: 120 * MIB + i * slopeBytes,
    threads: 12,
    loadMs: 100 + i,
    unloadMs: 20,
  }));
  return {
    allocator,
    label,
    env: allocator === 'glibc' ? {} : { LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' },
    preloadVerified: true,
    baselineRssBytes: 85 * MIB,
    baselineThreads: 12,
    samples,
    fit: linearFit(samples.filter((s) => s.cycle >= 4).map((s) => [s.cycle, s.rssBytes] as const)),
    peakRssBytes: 160 * MIB,
    durationMs: 5000,
  };
}

function cyclesFixture(): CyclesResult {
  return {
    schema: CYCLES_SCHEMA,
    command: 'npm run bench:cycles -- --cycles 10 --fit-from 4',
    startedAt: '2026-11-23T10:00:00.000Z',
    machine: machineInfo(),
    model: 'mlp',
    cycles: 10,
    inferencesPerCycle: 8,
    fitFrom: 4,
    serverArgs: ['--model-repository=model_repository', '--model-control-mode=explicit'],
    curves: [curve('glibc', 'glibc malloc', 512 * 1024), curve('jemalloc', 'jemalloc', 0)],
  };
}

void describe('load/unload cycles report', () => {
  const result = cyclesFixture();

  void it('writes one CSV row per cycle after the baseline row, columns per allocator', () => {
    const lines = cyclesCsv(result).trimEnd().split('\n');
    assert.equal(lines.length, 1 + 1 + 10);
    assert.equal(
      lines[0],
      'cycle,glibc_rss_kib,glibc_loaded_rss_kib,glibc_threads,glibc_load_ms,glibc_unload_ms,' +
        'jemalloc_rss_kib,jemalloc_loaded_rss_kib,jemalloc_threads,jemalloc_load_ms,jemalloc_unload_ms',
    );
    assert.equal(lines[1], `0,${85 * 1024},,12,,,${85 * 1024},,12,,`);
    assert.equal(
      lines[3],
      `2,${120 * 1024 + 512},${150 * 1024 + 512},12,101.0,20.0,${120 * 1024},${150 * 1024},12,101.0,20.0`,
    );
  });

  void it('plots unloaded and loaded RSS per allocator on an axis around the data', () => {
    const plot = cyclesPlotModel(result);
    assert.deepEqual(
      plot.series.map((s) => [s.label, s.dashed, s.points.length]),
      [
        ['glibc malloc, unloaded', false, 10],
        ['glibc malloc, loaded', true, 10],
        ['jemalloc, unloaded', false, 10],
        ['jemalloc, loaded', true, 10],
      ],
    );
    assert.ok(plot.y.min > 0 && plot.y.min <= 120, `y from ${plot.y.min}`);
    assert.ok(plot.y.max >= 150 + (9 * 512) / 1024, `y to ${plot.y.max}`);
    assert.deepEqual(plot.markers, [{ x: 4, label: 'fit from' }]);
  });

  void it('states start, checkpoints, slope and fit quality per allocator', () => {
    const md = cyclesSection(
      result,
      'bench/results/model-cycles.json',
      'results/model-cycles.png',
    ).join('\n');
    assert.match(md, /^## Memory over 10 load\/unload cycles of `mlp`/);
    assert.match(md, /rendered from `bench\/results\/model-cycles\.json`/);
    assert.match(md, /\| memory set-up \| RSS before the first load, MiB \|/);
    assert.doesNotMatch(md, /full-GC run/, 'the GC note only where a GC run was measured');
    // glibc: 85 MiB before, 120 after cycle 1, 121.5 after cycle 4, 124.5 after cycle 10, +512 KiB / cycle.
    assert.match(
      md,
      /\| glibc malloc \| 85\.0 \| 120\.0 \| 121\.5 \| 124\.5 \| \+512\.0 KiB \/ cycle \| 1\.00 \|/,
    );
    assert.match(
      md,
      /\| jemalloc \| 85\.0 \| 120\.0 \| 120\.0 \| 120\.0 \| \+0\.0 KiB \/ cycle \| 1\.00 \|/,
    );
    assert.match(md, /!\[RSS over load\/unload cycles\]\(results\/model-cycles\.png\)/);
    assert.equal(perCycle(-2048), '−2.0 KiB');
    // Peak: VmHWM (160 MiB), unless a sample was higher (glibc's last loaded one: 154.5 MiB is not).
    assert.match(md, /\| 154\.5 MiB \| 160\.0 MiB \|/);
    const [glibc] = result.curves;
    assert.ok(glibc !== undefined);
    assert.equal(peakRss({ ...glibc, peakRssBytes: 0 }), 150 * MIB + 9 * 512 * 1024);
  });
});

function phase(id: PhaseId, latenciesUs: readonly number[], failures: number): PhaseResult {
  const h = newHistogram();
  for (const v of latenciesUs) recordUs(h, v);
  return {
    id,
    durationMs: 2000,
    requests: latenciesUs.length,
    failures,
    errorSample: failures > 0 ? 'HTTP 503: no available versions' : null,
    reqPerSec: latenciesUs.length / 2,
    latency: summarize(h),
    histogram: encodeHistogram(h),
    serverCores: 1.2,
    machineCores: 1.9,
  };
}

function reloadFixture(failures: number): ReloadResult {
  return {
    schema: RELOAD_SCHEMA,
    command: 'npm run bench:reload',
    startedAt: '2026-11-23T10:00:00.000Z',
    machine: machineInfo(),
    model: 'mlp',
    clients: 8,
    serverArgs: ['--model-control-mode=explicit', '--load-model=mlp'],
    phases: [
      // Below 2048 µs HDR's 3 significant digits hold every value exactly.
      phase(
        'steady',
        Array.from({ length: 100 }, () => 1000),
        0,
      ),
      phase(
        'reloads',
        Array.from({ length: 100 }, (_, i) => (i < 95 ? 1500 : 2000)),
        failures,
      ),
      phase(
        'steady-after',
        Array.from({ length: 100 }, () => 1000),
        0,
      ),
    ],
    reloads: [
      { reload: 1, instances: 1, newVersion: false, durationMs: 250.4 },
      { reload: 2, instances: 2, newVersion: true, durationMs: 400.6 },
    ],
    switches: 2,
    finalIndex: [
      { name: 'mlp', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'mlp', version: '2', state: 'READY', reason: '' },
    ],
  };
}

void describe('reload-under-load report', () => {
  void it('writes the phases and the reloads as CSV', () => {
    const r = reloadFixture(0);
    assert.deepEqual(phasesCsv(r).trimEnd().split('\n').slice(1), [
      'steady,2.000,100,0,50.0,1000,1000,1000,1000,1000,1.20,1.90',
      'reloads,2.000,100,0,50.0,1500,1500,2000,2000,2000,1.20,1.90',
      'steady-after,2.000,100,0,50.0,1000,1000,1000,1000,1000,1.20,1.90',
    ]);
    assert.equal(
      reloadsCsv(r),
      'reload,instances,new_version,duration_ms\n1,1,false,250.4\n2,2,true,400.6\n',
    );
  });

  void it('compares the reload phase with steady state and names every reload', () => {
    const md = reloadSection(reloadFixture(0), 'bench/results/reload-under-load.json').join('\n');
    assert.match(md, /^## Reloading `mlp` under load/);
    assert.match(
      md,
      /\| steady state \| 2\.0 \| 100 \| 0 \| 50 \| 1\.00 \| 1\.00 \| 1\.00 \| 1\.00 \| 1× \|/,
    );
    assert.match(
      md,
      /\| during the reloads \| 2\.0 \| 100 \| 0 \| 50 \| 1\.50 \| 2\.00 \| 2\.00 \| 2\.00 \| 2\.00× \|/,
    );
    assert.match(md, /Failures over all phases: \*\*0\*\*\./);
    assert.match(md, /`mlp` 1 UNAVAILABLE \(unloaded\), `mlp` 2 READY/);
    assert.match(md, /reload 2 also adds version 2/);
    assert.match(md, /\| instances \| 1 \| 2 \+ v2 \|/);
    assert.match(md, /median 326 ms, min 250 ms, max 401 ms/);
  });

  void it('shows the failures and the first error when there were any', () => {
    const md = reloadSection(reloadFixture(3), 'x.json').join('\n');
    assert.match(
      md,
      /Failures over all phases: \*\*3\*\* \(first: HTTP 503: no available versions\)/,
    );
  });
});

void describe('inspectorUrl', () => {
  void it("finds the URL Node prints when --inspect is on, among the server's log lines", () => {
    const lines = [
      'Debugger listening on ws://127.0.0.1:40123/0f1e2d3c-aaaa-bbbb-cccc-123456789abc',
      'For help, see: https://nodejs.org/en/docs/inspector',
      '{"level":30,"msg":"serving"}',
    ];
    assert.equal(inspectorUrl(lines), 'ws://127.0.0.1:40123/0f1e2d3c-aaaa-bbbb-cccc-123456789abc');
    assert.equal(inspectorUrl(lines.slice(1)), null);
  });
});
