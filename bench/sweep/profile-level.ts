// One load level, perf_analyzer's way: start the load, then measure window after window until the
// last three are stable (or --max-trials windows have passed), then stop. Each window pairs the
// generator's snapshot with the server's stats and the CPU time of both processes, read at the
// same boundary.

import type { DriverClient } from '../load/driver-client.js';
import type { LoadLevel } from '../load/messages.js';
import { machineBusyMs, processCpuMs } from '../measure/process-cpu.js';
import { subtractCounters, type ServerCounters } from '../measure/server-stats.js';
import { checkStability, type StabilityVerdict } from '../measure/stability.js';
import type { LevelResult, WindowResult } from '../report/result-types.js';
import type { StageTable } from '../measure/stage-table.js';
import { buildWindow, summarizeLevel } from './window-math.js';

export interface LevelProbe {
  readonly driver: DriverClient;
  /** Reads the server's cumulative counters; null when the target has no stats extension. */
  readonly readCounters: (() => Promise<ServerCounters | null>) | null;
  /**
   * The server's pid for CPU time (several: the servers of an N-process reference, their CPU
   * summed); null when there is no separate server process.
   */
  readonly serverPid: number | readonly number[] | null;
  /**
   * --trace: reads the server's per-stage timeline, clearing it with `reset` (absent: the target
   * is not traced). Reset as the first window starts, read after the last.
   */
  readonly readStages?: (reset: boolean) => Promise<StageTable | null>;
}

export interface ProfileSettings {
  readonly measurementIntervalMs: number;
  readonly maxTrials: number;
  readonly stabilityPercentage: number;
  readonly percentile: number;
  readonly batchSize: number;
}

export type WindowListener = (
  window: WindowResult,
  trial: number,
  verdict: StabilityVerdict,
) => void;

interface Marks {
  readonly wall: number;
  readonly server: number | null;
  readonly machine: number | null;
}

/** The CPU time of every process in `pids`, summed; null when any cannot be read. */
export function processesCpuMs(pids: number | readonly number[]): number | null {
  let total = 0;
  for (const pid of typeof pids === 'number' ? [pids] : pids) {
    const ms = processCpuMs(pid);
    if (ms === null) return null;
    total += ms;
  }
  return total;
}

function marks(serverPid: LevelProbe['serverPid']): Marks {
  return {
    wall: performance.now(),
    server: serverPid === null ? null : processesCpuMs(serverPid),
    machine: machineBusyMs(),
  };
}

const delta = (a: number | null, b: number | null): number | null =>
  a === null || b === null ? null : a - b;

export async function profileLevel(
  probe: LevelProbe,
  level: LoadLevel,
  settings: ProfileSettings,
  onWindow: WindowListener = () => {},
): Promise<LevelResult> {
  await probe.driver.startLevel(level);
  const windows: WindowResult[] = [];
  let verdict: StabilityVerdict = { stable: false, reason: 'no window measured' };
  let stages: StageTable | null = null;
  try {
    await probe.readStages?.(true);
    let counters = (await probe.readCounters?.()) ?? null;
    let mark = marks(probe.serverPid);
    for (let trial = 1; trial <= settings.maxTrials; trial += 1) {
      await new Promise((resolve) => setTimeout(resolve, settings.measurementIntervalMs));
      const [generator, after] = await Promise.all([
        probe.driver.snapshot(),
        probe.readCounters?.() ?? Promise.resolve(null),
      ]);
      const now = marks(probe.serverPid);
      const window = buildWindow({
        index: windows.length,
        generator,
        server: after !== null && counters !== null ? subtractCounters(after, counters) : null,
        cpu: {
          wallMs: now.wall - mark.wall,
          generatorMs: generator.cpuMs,
          generatorThreads: generator.threads,
          serverMs: delta(now.server, mark.server),
          machineMs: delta(now.machine, mark.machine),
        },
        batchSize: settings.batchSize,
        percentile: settings.percentile,
      });
      counters = after;
      mark = now;
      windows.push(window);
      verdict = checkStability(
        windows.map((w) => ({ throughput: w.inferPerSec, latencyUs: w.stabilityLatencyUs })),
        settings.stabilityPercentage,
      );
      onWindow(window, trial, verdict);
      if (verdict.stable) break;
    }
    stages = (await probe.readStages?.(false)) ?? null;
  } finally {
    await probe.driver.stopLevel();
  }
  return {
    mode: level.kind,
    value: level.kind === 'concurrency' ? level.concurrency : level.rate,
    stable: verdict.stable,
    stability: verdict.stable
      ? 'stable'
      : `not stable after ${windows.length} windows: ${verdict.reason}`,
    summary: summarizeLevel(windows, settings.batchSize, settings.percentile),
    windows,
    ...(stages !== null && stages.requests > 0 && { stages }),
  };
}
