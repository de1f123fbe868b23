// The response cache's memory run: a server whose local cache has a small byte budget takes a
// closed-loop load of inputs it has never seen (every request a miss that inserts and evicts) for
// a fixed time, while the server's RSS (/proc/<pid>/status) and its cache gauges (/metrics) are
// sampled every second. The budget holds when RSS stops growing once the cache is full.

import { processMemory } from '../measure/process-memory.js';
import type { ServerProcess } from '../targets/server-process.js';
import type { MemorySample } from './cache-result.js';

const SAMPLE_MS = 1000;

/** A gauge's value from Prometheus text (0 when absent). */
export function gaugeValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Samples the server every second from now until `stop()`, which returns the samples. */
export function sampleServer(
  server: ServerProcess,
  metricsPort: number,
): { readonly startedAtMs: number; stop(): Promise<MemorySample[]> } {
  const samples: MemorySample[] = [];
  const start = performance.now();
  const startedAtMs = Date.now();
  let pending: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    const t = Math.round((performance.now() - start) / 1000);
    const mem = processMemory(server.pid);
    let text = '';
    try {
      text = await (await fetch(`http://${server.host}:${metricsPort}/metrics`)).text();
    } catch {
      // A missed scrape leaves the gauges at 0 for that second; RSS is still recorded.
    }
    if (mem === null) return;
    samples.push({
      t,
      rssBytes: mem.rssBytes,
      cacheBytes: gaugeValue(text, 'infernode_cache_bytes'),
      evictions: gaugeValue(text, 'infernode_cache_evictions'),
    });
  };
  const timer = setInterval(() => {
    pending = pending.then(take);
  }, SAMPLE_MS);
  return {
    /** Epoch ms of t = 0, to place the load's windows on the samples' time line. */
    startedAtMs,
    async stop(): Promise<MemorySample[]> {
      clearInterval(timer);
      await pending;
      return samples;
    },
  };
}
