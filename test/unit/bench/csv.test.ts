// perf_analyzer's CSV (-f): its exact columns, row order, units and number formatting.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCppDouble, perfAnalyzerCsv, percentileColumns } from '../../../bench/report/csv.js';
import type { ServerBreakdown } from '../../../bench/measure/server-stats.js';
import type { LevelResult, TargetResult } from '../../../bench/report/result-types.js';

const PA_COLUMNS =
  'Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,' +
  'Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,' +
  'p50 latency,p90 latency,p95 latency,p99 latency';

function server(queue: number, input: number, infer: number, output: number): ServerBreakdown {
  return {
    requests: 10,
    inferences: 10,
    executions: 10,
    avgBatchSize: 1,
    avgRequestUs: queue + input + infer + output,
    avgQueueUs: queue,
    avgComputeInputUs: input,
    avgComputeInferUs: infer,
    avgComputeOutputUs: output,
    avgOverheadUs: 0,
    failures: 0,
  };
}

function level(
  mode: LevelResult['mode'],
  value: number,
  inferPerSec: number,
  avgUs: number,
  srv: ServerBreakdown | null,
  percentileUs: number | null = null,
): LevelResult {
  return {
    mode,
    value,
    stable: true,
    stability: 'stable',
    windows: [],
    summary: {
      windows: 3,
      durationMs: 3000,
      requests: 100,
      inferences: 100,
      errors: 0,
      reqPerSec: inferPerSec,
      inferPerSec,
      latency: {
        count: 100,
        avgUs,
        stddevUs: 1,
        minUs: 1,
        p50Us: avgUs + 0.9,
        p90Us: avgUs * 2,
        p95Us: avgUs * 3,
        p99Us: avgUs * 4,
        p999Us: avgUs * 5,
        maxUs: avgUs * 6,
      },
      percentileUs,
      stabilityLatencyUs: avgUs,
      avgSendUs: 12.9,
      avgRecvUs: 30.2,
      maxSendLagUs: 0,
      server: srv,
      cpu: { generator: 0.1, generatorPerThread: 0.1, server: 1, machine: 1.2, other: 0.1 },
      histogram: '',
    },
  };
}

function target(levels: LevelResult[]): TargetResult {
  return {
    id: 't',
    kind: 'infernode',
    label: 't',
    description: '',
    transport: 'HTTP JSON',
    notes: [],
    levels,
  };
}

void describe('perfAnalyzerCsv', () => {
  void it("writes perf_analyzer's columns, sorted by throughput, in whole microseconds", () => {
    const csv = perfAnalyzerCsv(
      target([
        level('concurrency', 8, 812.345678, 9800.7, server(5000, 20, 3000, 30.9)),
        level('concurrency', 1, 400.5, 2450.2, server(40, 20, 2000, 30)),
      ]),
      -1,
    );
    const [header, first, second, end] = csv.split('\n');
    assert.equal(header, PA_COLUMNS);
    // client wait = 2450.2 - 12.9 - 30.2 = 2407.1; minus queue + compute (2090) = 317.1 -> 317
    assert.equal(first, '1,400.5,12,317,40,20,2000,30,30,2451,4900,7350,9800');
    // 9800.7 - 43.1 - 8050.9 = 1706.7
    assert.equal(second, '8,812.346,12,1706,5000,20,3000,30,30,9801,19601,29402,39202');
    assert.equal(end, '');
  });

  void it('floors Network+Server at 0 when the server accounts for more than the client saw', () => {
    const csv = perfAnalyzerCsv(
      target([level('concurrency', 1, 100, 1000, server(900, 50, 500, 50))]),
      -1,
    );
    assert.equal(csv.split('\n')[1]?.split(',')[3], '0');
  });

  void it('leaves out the server columns when the server has no statistics', () => {
    const csv = perfAnalyzerCsv(target([level('concurrency', 1, 100, 1000, null)]), -1);
    assert.equal(
      csv.split('\n')[0],
      'Concurrency,Inferences/Second,Client Send,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency',
    );
    assert.equal(csv.split('\n')[1], '1,100,12,30,1000,2000,3000,4000');
  });

  void it('heads request-rate runs with Request Rate', () => {
    const csv = perfAnalyzerCsv(target([level('request-rate', 250.5, 249, 1000, null)]), -1);
    assert.match(csv, /^Request Rate,Inferences\/Second,/);
    assert.match(csv.split('\n')[1] ?? '', /^250\.5,249,/);
  });

  void it('adds --percentile as a column in order', () => {
    assert.deepEqual(percentileColumns(-1), [50, 90, 95, 99]);
    assert.deepEqual(percentileColumns(75), [50, 75, 90, 95, 99]);
    assert.deepEqual(percentileColumns(99.9), [50, 90, 95, 99, 99.9]);
    assert.deepEqual(percentileColumns(99), [50, 90, 95, 99]);
    const csv = perfAnalyzerCsv(target([level('concurrency', 1, 100, 1000, null, 1777.7)]), 75);
    assert.match(csv.split('\n')[0] ?? '', /p50 latency,p75 latency,p90 latency/);
    assert.equal(csv.split('\n')[1]?.split(',')[5], '1777');
  });
});

void describe('formatCppDouble', () => {
  void it('prints like std::ostream << double (6 significant digits, %g)', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [1, '1'],
      [12, '12'],
      [0.5, '0.5'],
      [1234.5678, '1234.57'],
      [812.345678, '812.346'],
      [999999, '999999'],
      [999999.5, '1e+06'],
      [1234567.8, '1.23457e+06'],
      [0.0001, '0.0001'],
      [0.0000123, '1.23e-05'],
      [-42.125, '-42.125'],
      [100000, '100000'],
      [1e21, '1e+21'],
    ];
    for (const [x, expected] of cases) assert.equal(formatCppDouble(x), expected, String(x));
  });
});
