// A sweep: one target through every level of --concurrency-range or --request-rate-range, with a
// progress line per window and a result line per level. Stops early once a level's latency is
// over --latency-threshold.

import type { LoadLevel } from '../load/messages.js';
import type { BenchOptions } from '../options/bench-options.js';
import { rangeLevels } from '../options/load-range.js';
import { STABILITY_WINDOW } from '../measure/stability.js';
import { cacheStatsLine } from '../report/cache-lines.js';
import { levelName, ms, rate } from '../report/format.js';
import type { Progress } from '../report/progress.js';
import type { LevelResult } from '../report/result-types.js';
import { profileLevel, type LevelProbe, type ProfileSettings } from './profile-level.js';

export function sweepLevels(options: BenchOptions): LoadLevel[] {
  const sweep = options.sweep;
  return [...rangeLevels(sweep.range)].map((value): LoadLevel => {
    switch (sweep.kind) {
      case 'concurrency':
        return { kind: 'concurrency', concurrency: value };
      case 'request-rate':
        return {
          kind: 'request-rate',
          rate: value,
          distribution: sweep.distribution,
          seed: options.seed,
        };
    }
  });
}

export function profileSettings(options: BenchOptions): ProfileSettings {
  return {
    measurementIntervalMs: options.measurementIntervalMs,
    maxTrials: options.maxTrials,
    stabilityPercentage: options.stabilityPercentage,
    percentile: options.percentile,
    batchSize: options.batchSize,
  };
}

export function describeLevel(label: string, level: LevelResult, percentile: number): string {
  const s = level.summary;
  const l = s.latency;
  const custom = s.percentileUs !== null ? ` p${percentile} ${ms(s.percentileUs)}` : '';
  const stable = level.stable
    ? `stable after ${level.windows.length} windows`
    : `NOT STABLE, ${level.stability}`;
  const errors =
    s.errors > 0
      ? `, ${s.errors} errors (${level.windows.find((w) => w.errorSample)?.errorSample ?? ''})`
      : '';
  const server = s.cpu.server === null ? '' : `server ${s.cpu.server.toFixed(2)} + `;
  const cache = cacheStatsLine(s.server);
  return (
    `[${label}] ${levelName(level.mode, level.value)}: ${rate(s.inferPerSec)} infer/s, latency ms avg ${ms(l.avgUs)}` +
    ` p50 ${ms(l.p50Us)} p90 ${ms(l.p90Us)} p99 ${ms(l.p99Us)}${custom} max ${ms(l.maxUs)}` +
    ` (${stable}; cores: ${server}generator ${s.cpu.generator.toFixed(2)}${errors})` +
    (cache === null ? '' : `\n  ${cache}`)
  );
}

export async function runSweep(
  label: string,
  probe: LevelProbe,
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<LevelResult[]> {
  const settings = profileSettings(options);
  const results: LevelResult[] = [];
  for (const [i, level] of levels.entries()) {
    const name = levelName(
      level.kind,
      level.kind === 'concurrency' ? level.concurrency : level.rate,
    );
    progress.update(`[${label}] ${name} (${i + 1}/${levels.length}): starting`);
    const result = await profileLevel(probe, level, settings, (w, trial, verdict) => {
      progress.update(
        `[${label}] ${name} (${i + 1}/${levels.length}) window ${trial}/${settings.maxTrials}: ` +
          `${rate(w.inferPerSec)} infer/s, p99 ${ms(w.latency.p99Us)} ms` +
          (verdict.stable ? '' : ` — ${trial >= STABILITY_WINDOW ? verdict.reason : 'warming up'}`),
      );
    });
    results.push(result);
    progress.log(describeLevel(label, result, options.percentile));
    const threshold = options.latencyThresholdMs * 1000;
    if (threshold > 0 && result.summary.stabilityLatencyUs > threshold) {
      progress.log(
        `[${label}] latency over --latency-threshold ${options.latencyThresholdMs} ms: sweep stops`,
      );
      break;
    }
  }
  return results;
}
