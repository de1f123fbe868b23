// Turns what the generator, the server's stats and /proc reported at two window boundaries into a
// WindowResult, and a level's last windows into its summary. Pure functions over plain data.

import {
  decodeHistogram,
  encodeHistogram,
  mergeEncoded,
  percentileUs,
  summarize,
  type Histogram,
} from '../measure/latency-histogram.js';
import { addCounters, breakdown, type ServerCounters } from '../measure/server-stats.js';
import { STABILITY_WINDOW } from '../measure/stability.js';
import type { DriverWindow } from '../load/messages.js';
import type { CpuCores, CpuTimes, LevelSummary, WindowResult } from '../report/result-types.js';

export interface WindowInputs {
  readonly index: number;
  readonly generator: DriverWindow;
  /** Server counters over the window (already subtracted), or null. */
  readonly server: ServerCounters | null;
  readonly cpu: CpuTimes;
  readonly batchSize: number;
  /** -1: the average latency drives stability; else this percentile. */
  readonly percentile: number;
}

function stabilityLatency(h: Histogram, percentile: number): number {
  if (h.totalCount === 0) return 0;
  return percentile > 0 ? percentileUs(h, percentile) : h.mean;
}

export function buildWindow(w: WindowInputs): WindowResult {
  const g = w.generator;
  const durationMs = Math.max(1e-6, g.endMs - g.startMs);
  const h = decodeHistogram(g.histogram);
  const reqPerSec = g.completed / (durationMs / 1000);
  return {
    index: w.index,
    startMs: g.startMs,
    durationMs,
    requests: g.completed,
    inferences: g.completed * w.batchSize,
    errors: g.errors,
    errorSample: g.errorSample,
    reqPerSec,
    inferPerSec: reqPerSec * w.batchSize,
    latency: summarize(h),
    stabilityLatencyUs: stabilityLatency(h, w.percentile),
    sendUsSum: g.sendUsSum,
    recvUsSum: g.recvUsSum,
    maxSendLagUs: g.maxLagUs,
    inFlight: g.inFlight,
    queued: g.queued,
    server: w.server,
    cpu: w.cpu,
    histogram: g.histogram,
  };
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const sumOrNull = (xs: readonly (number | null)[]): number | null =>
  xs.some((x) => x === null) ? null : sum(xs as number[]);

export function cpuCores(times: readonly CpuTimes[]): CpuCores {
  const wall = Math.max(1e-6, sum(times.map((t) => t.wallMs)));
  const generator = sum(times.map((t) => t.generatorMs)) / wall;
  const serverMs = sumOrNull(times.map((t) => t.serverMs));
  const machineMs = sumOrNull(times.map((t) => t.machineMs));
  const server = serverMs === null ? null : serverMs / wall;
  const machine = machineMs === null ? null : machineMs / wall;
  const threads = Math.max(1, ...times.map((t) => t.generatorThreads));
  return {
    generator,
    generatorPerThread: generator / threads,
    server,
    machine,
    other: machine === null ? null : Math.max(0, machine - generator - (server ?? 0)),
  };
}

/** The level's figures over its last (up to 3) windows, as perf_analyzer merges stable windows. */
export function summarizeLevel(
  all: readonly WindowResult[],
  batchSize: number,
  percentile: number,
): LevelSummary {
  const windows = all.slice(-STABILITY_WINDOW);
  const merged = mergeEncoded(windows.map((w) => w.histogram));
  const durationMs = sum(windows.map((w) => w.durationMs));
  const requests = sum(windows.map((w) => w.requests));
  const reqPerSec = durationMs > 0 ? requests / (durationMs / 1000) : 0;
  const servers = windows.map((w) => w.server);
  const first = servers[0];
  const serverTotal =
    first === undefined || first === null || servers.some((s) => s === null)
      ? null
      : (servers as ServerCounters[]).slice(1).reduce(addCounters, first);
  return {
    windows: windows.length,
    durationMs,
    requests,
    inferences: requests * batchSize,
    errors: sum(windows.map((w) => w.errors)),
    reqPerSec,
    inferPerSec: reqPerSec * batchSize,
    latency: summarize(merged),
    percentileUs: percentile > 0 ? percentileUs(merged, percentile) : null,
    stabilityLatencyUs: stabilityLatency(merged, percentile),
    avgSendUs: requests > 0 ? sum(windows.map((w) => w.sendUsSum)) / requests : 0,
    avgRecvUs: requests > 0 ? sum(windows.map((w) => w.recvUsSum)) / requests : 0,
    maxSendLagUs: Math.max(0, ...windows.map((w) => w.maxSendLagUs)),
    server: serverTotal === null ? null : breakdown(serverTotal),
    cpu: cpuCores(windows.map((w) => w.cpu)),
    histogram: encodeHistogram(merged),
  };
}
