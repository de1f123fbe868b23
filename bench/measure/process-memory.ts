// A process's memory and thread count from /proc/<pid>/status: the resident set (VmRSS), its peak
// (VmHWM) and Threads. Linux only; elsewhere the reader returns null and the benches refuse to run.

import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident set size, bytes. */
  readonly rssBytes: number;
  /** The largest resident set the process has had, bytes. */
  readonly peakRssBytes: number;
  /** Threads in the process (the main thread, ORT's pools, one per model-instance worker, libuv). */
  readonly threads: number;
}

/** The fields of /proc/<pid>/status this bench reads; `kB` there means KiB. */
export function parseProcStatus(text: string): ProcessMemory | null {
  const field = (name: string): number | null => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
    return m === null ? null : Number(m[1]);
  };
  const rss = field('VmRSS');
  const hwm = field('VmHWM');
  const threads = field('Threads');
  if (rss === null || hwm === null || threads === null) return null;
  return { rssBytes: rss * 1024, peakRssBytes: hwm * 1024, threads };
}

export function processMemory(pid: number): ProcessMemory | null {
  try {
    return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether a shared library whose file name starts with `prefix` is mapped into the process. */
export function mapsLibrary(pid: number, prefix: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/maps`, 'utf8')
      .split('\n')
      .some((line) => (line.split('/').pop() ?? '').startsWith(prefix));
  } catch {
    return false;
  }
}
