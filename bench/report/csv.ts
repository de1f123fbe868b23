// perf_analyzer's latency report (-f FILE.csv), column for column (report_writer.cc): the first
// column is the load level, the server-side columns appear only when the server reported
// statistics, times are whole microseconds (truncated, as perf_analyzer's ns / 1000), rows are
// sorted by increasing throughput, and Inferences/Second is printed like a C++ stream prints a
// double (6 significant digits).

import type { LevelResult, TargetResult } from './result-types.js';

/** `std::ostream << double` with the default precision 6 (printf %g). */
export function formatCppDouble(x: number): string {
  if (x === 0) return '0';
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const exponent = Math.floor(Math.log10(Math.abs(x)));
  const precise = Number(x.toPrecision(6));
  // Rounding may carry into the next power of ten (999999.5 -> 1e+06): decide on the rounded value.
  const e = precise === 0 ? exponent : Math.floor(Math.log10(Math.abs(precise)));
  if (e < -4 || e >= 6) {
    const [mantissa = '', exp = '0'] = precise.toExponential(5).split('e');
    const m = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const n = Number(exp);
    return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const fixed = precise.toFixed(Math.max(0, 5 - e));
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

const us = (x: number): string => String(Math.max(0, Math.floor(x)));

/** Percentile columns: perf_analyzer's 50/90/95/99 plus --percentile, in increasing order. */
export function percentileColumns(percentile: number): number[] {
  const set = new Set([50, 90, 95, 99]);
  if (percentile > 0) set.add(percentile);
  return [...set].sort((a, b) => a - b);
}

function percentileValue(level: LevelResult, p: number): number {
  const l = level.summary.latency;
  switch (p) {
    case 50:
      return l.p50Us;
    case 90:
      return l.p90Us;
    case 95:
      return l.p95Us;
    case 99:
      return l.p99Us;
    default:
      return level.summary.percentileUs ?? 0;
  }
}

export function perfAnalyzerCsv(target: TargetResult, percentile: number): string {
  const levels = [...target.levels].sort((a, b) => a.summary.inferPerSec - b.summary.inferPerSec);
  const withServer =
    target.levels.length > 0 && target.levels.every((l) => l.summary.server !== null);
  const mode = target.levels[0]?.mode ?? 'concurrency';
  const header = [
    mode === 'concurrency' ? 'Concurrency' : 'Request Rate',
    'Inferences/Second',
    'Client Send',
    ...(withServer
      ? [
          'Network+Server Send/Recv',
          'Server Queue',
          'Server Compute Input',
          'Server Compute Infer',
          'Server Compute Output',
        ]
      : []),
    'Client Recv',
    ...percentileColumns(percentile).map((p) => `p${p} latency`),
  ];
  const rows = levels.map((level) => {
    const s = level.summary;
    const cells = [formatCppDouble(level.value), formatCppDouble(s.inferPerSec), us(s.avgSendUs)];
    if (withServer && s.server !== null) {
      const v = s.server;
      // perf_analyzer: client wait (latency - send - recv) minus what the server accounts for,
      // floored at 0 because the two sides are measured separately.
      const wait = s.latency.avgUs - s.avgSendUs - s.avgRecvUs;
      const accounted =
        v.avgQueueUs + v.avgComputeInputUs + v.avgComputeInferUs + v.avgComputeOutputUs;
      cells.push(
        us(Math.max(0, wait - accounted)),
        us(v.avgQueueUs),
        us(v.avgComputeInputUs),
        us(v.avgComputeInferUs),
        us(v.avgComputeOutputUs),
      );
    }
    cells.push(
      us(s.avgRecvUs),
      ...percentileColumns(percentile).map((p) => us(percentileValue(level, p))),
    );
    return cells.join(',');
  });
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
