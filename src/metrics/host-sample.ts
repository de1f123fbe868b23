// Triton's host CPU metrics (nv_cpu_utilization, nv_cpu_memory_total_bytes, nv_cpu_memory_used_bytes),
// computed as Triton's core does (src/metrics.cc): utilization is the busy share of the aggregate
// `cpu` line of /proc/stat between two readings, busy = user + nice + system + irq + softirq + steal
// and idle = idle + iowait; used memory is MemTotal - MemAvailable from /proc/meminfo. Where /proc
// is absent (macOS), os.cpus() times and os.totalmem()/os.freemem() stand in.

import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Cumulative CPU time, in any unit (jiffies from /proc/stat, ms from os.cpus()). */
export interface CpuTimes {
  readonly busy: number;
  readonly idle: number;
}

export interface HostReading {
  /** 0..1 over the last interval; 0 before the second reading, as Triton. */
  readonly cpuUtilization: number;
  readonly memoryTotalBytes: number;
  readonly memoryUsedBytes: number;
}

/** The aggregate `cpu ` line of /proc/stat's text, or undefined when it has none. */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split('\n', 1)[0] ?? '';
  if (!line.startsWith('cpu ')) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number): number => f[i] ?? 0;
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
  return { busy: at(0) + at(1) + at(2) + at(5) + at(6) + at(7), idle: at(3) + at(4) };
}

/** MemTotal and MemTotal - MemAvailable from /proc/meminfo's text (kB there), in bytes. */
export function parseMemInfo(text: string): { total: number; used: number } | undefined {
  const kb = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
    return m === null ? undefined : Number(m[1]) * 1024;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  if (total === undefined || available === undefined || available > total) return undefined;
  return { total, used: total - available };
}

/** The busy share between two readings; counters that went back (a wrap) count as 0, as Triton. */
export function cpuUtilization(now: CpuTimes, before: CpuTimes): number {
  const busy = Math.max(0, now.busy - before.busy);
  const idle = Math.max(0, now.idle - before.idle);
  return busy + idle === 0 ? 0 : busy / (busy + idle);
}

function readCpuTimes(): CpuTimes {
  try {
    const times = parseProcStat(readFileSync('/proc/stat', 'latin1'));
    if (times !== undefined) return times;
  } catch {
    // no /proc: below
  }
  let busy = 0;
  let idle = 0;
  for (const { times } of os.cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return { busy, idle };
}

function readMemory(): { total: number; used: number } {
  try {
    const m = parseMemInfo(readFileSync('/proc/meminfo', 'latin1'));
    if (m !== undefined) return m;
  } catch {
    // no /proc: below
  }
  return { total: os.totalmem(), used: os.totalmem() - os.freemem() };
}

/** Reads the host at each `sample()` (the metrics interval); `latest` is what a scrape shows. */
export class HostSampler {
  #cpu: CpuTimes = readCpuTimes();
  latest: HostReading;

  constructor() {
    const m = readMemory();
    this.latest = { cpuUtilization: 0, memoryTotalBytes: m.total, memoryUsedBytes: m.used };
  }

  sample(): void {
    const cpu = readCpuTimes();
    const m = readMemory();
    this.latest = {
      cpuUtilization: cpuUtilization(cpu, this.#cpu),
      memoryTotalBytes: m.total,
      memoryUsedBytes: m.used,
    };
    this.#cpu = cpu;
  }
}
