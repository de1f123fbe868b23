// One hostile-client scenario against a running server process, measured by its RSS: the resident
// set before, the peak while the clients stall (they send until the server stops taking requests,
// or `stallMs` passes), and the resident set `afterMs` after they disconnect. Also what the server's
// client-memory gauge said at the peak (null where the server exports none).

import { setTimeout as sleep } from 'node:timers/promises';
import { processMemory } from '../measure/process-memory.js';
import type { HostileEnd, HostileGroup } from './hostile-clients.js';

export interface HostileMeasurement {
  readonly baselineRss: number;
  readonly peakRss: number;
  /** RSS `afterMs` after the clients went. */
  readonly afterRss: number;
  /** Requests the clients got the server to take. */
  readonly sent: number;
  /** The largest value of the client-memory gauge seen while they stalled. */
  readonly peakReserved: number | null;
  /** How the streams or sockets ended before the clients went (the server's own refusals). */
  readonly ends: HostileEnd[];
}

export interface ScenarioOptions {
  readonly pid: number;
  readonly metricsBase: string;
  /** Longest the clients may stall before they disconnect. */
  readonly stallMs: number;
  /** How long after the disconnect the last RSS is read. */
  readonly afterMs: number;
  /**
   * Read the last RSS as soon as it is back within this many bytes of the baseline, at most
   * `afterMs` after the disconnect: for a caller that only asks whether the memory came back within
   * `afterMs` (the tests). Absent, the last RSS is read at `afterMs` exactly (the bench's figure).
   */
  readonly givenBackWithinBytes?: number;
}

/** Reported by the server as the bytes held for clients (docs/operations.md, "Hostile clients"). */
export const RESERVED_GAUGE = 'infernode_client_memory_reserved_bytes';

export async function measureHostile(
  open: () => Promise<HostileGroup>,
  options: ScenarioOptions,
): Promise<HostileMeasurement> {
  const rss = (): number => processMemory(options.pid)?.rssBytes ?? 0;
  const baselineRss = rss();
  let peakRss = baselineRss;
  let peakReserved: number | null = null;
  const group = await open();
  const start = performance.now();
  let lastSent = -1;
  let quietSince = start;
  while (performance.now() - start < options.stallMs) {
    await sleep(100);
    peakRss = Math.max(peakRss, rss());
    const reserved = await reservedGauge(options.metricsBase);
    if (reserved !== null) peakReserved = Math.max(peakReserved ?? 0, reserved);
    const sent = group.sent();
    if (sent !== lastSent) {
      lastSent = sent;
      quietSince = performance.now();
    } else if (performance.now() - quietSince > 2000) {
      break; // the server took nothing more for 2 s: it holds all it will hold
    }
  }
  peakRss = Math.max(peakRss, rss());
  const ends = group.ends();
  const sent = group.sent();
  group.destroy();
  const gone = performance.now();
  const within = options.givenBackWithinBytes;
  if (within === undefined) await sleep(options.afterMs);
  else {
    while (performance.now() - gone < options.afterMs && rss() - baselineRss > within) {
      await sleep(Math.min(100, Math.max(0, options.afterMs - (performance.now() - gone))));
    }
  }
  return { baselineRss, peakRss, afterRss: rss(), sent, peakReserved, ends };
}

/** The client-memory gauge's value, or null where the server exports none (or did not answer). */
export async function reservedGauge(metricsBase: string): Promise<number | null> {
  try {
    const text = await (await fetch(`${metricsBase}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${RESERVED_GAUGE} `));
    return line === undefined ? null : Number(line.split(' ').pop());
  } catch {
    return null;
  }
}

/** Bytes as MiB with one decimal, for reports and assertion messages. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
