// CPU time of other processes (the server under test) and of the whole machine, from /proc, so a
// report can show who used the cores during a window. Linux only: elsewhere the readers return
// null and the report says "unknown" rather than guessing.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** USER_HZ: the unit of /proc times (100 on every mainstream Linux; asked once via getconf). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process (all its threads), in ms; null if it cannot be read. */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the line are utime and stime; after the cut, field 3 is at index 0.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1000) / ticksPerSecond();
}

/** Busy CPU time of the whole machine (all cores, everything but idle and iowait), in ms. */
export function machineBusyMs(): number | null {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n', 1)[0] ?? '';
  if (!line.startsWith('cpu ')) return null;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user/nice).
  const busy = (v[0] ?? 0) + (v[1] ?? 0) + (v[2] ?? 0) + (v[5] ?? 0) + (v[6] ?? 0) + (v[7] ?? 0);
  return (busy * 1000) / ticksPerSecond();
}
