// The bench/RESULTS.md section of the shared-memory leak check, from bench/results/shm-leak-*.json:
// per protocol, the server's RSS and open fds every `every` cycles, and the drift after warm-up.

import type { ShmLeakResult } from '../shm/shm-leak-result.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const MIB = 2 ** 20;

export function shmLeakSection(results: readonly ShmLeakResult[], sources: string[]): string[] {
  const first = results[0];
  if (first === undefined) return [];
  const out: string[] = ['## Shared memory: register, infer, unregister cycles', ''];
  out.push(
    `Produced by ${results.map((r) => `\`${r.command}\``).join(', ')} ` +
      `(${first.startedAt.slice(0, 10)}); rendered from ${sources.map((s) => `\`${s}\``).join(', ')}.`,
    '',
    `- **Machine:** ${machineLineOf(first.machine)}`,
    `- **Code:** ${commitLineOf(first.machine)}`,
    '- **Workload:** a fresh infernode (`--allow-client-shm=true`) per protocol; each cycle ' +
      'registers a 192-byte `/dev/shm` region, infers `simple` with both inputs read from it and ' +
      'OUTPUT0 written into it, and unregisters it. The server’s VmRSS, VmHWM and open file ' +
      'descriptors (`/proc/<pid>/fd`) are read every N cycles.',
    '',
  );
  const cycles = [...new Set(results.flatMap((r) => r.samples.map((s) => s.cycle)))].sort(
    (a, b) => a - b,
  );
  const cell = (r: ShmLeakResult, cycle: number): [string, string] => {
    const s = r.samples.find((x) => x.cycle === cycle);
    return s === undefined ? ['', ''] : [(s.rssBytes / MIB).toFixed(1), String(s.fds)];
  };
  out.push(
    markdownTable({
      headers: ['cycle', ...results.flatMap((r) => [`${r.protocol} RSS MiB`, `${r.protocol} fds`])],
      rows: cycles.map((c) => [String(c), ...results.flatMap((r) => cell(r, c))]),
      align: alignColumns(1 + 2 * results.length, []),
    }),
    '',
  );
  for (const r of results) out.push(`- ${drift(r)}`);
  out.push(
    '',
    'RSS alone cannot tell a leak from the V8 heap growing between major collections (it grows ' +
      'its old generation while garbage accumulates, then a collection hands pages back): a leak ' +
      'keeps setting new highs, a sawtooth does not. So each line also gives the RSS range over ' +
      'the first and the second half of the samples after warm-up.',
    '',
  );
  return out;
}

const range = (xs: readonly number[]): string =>
  `${(Math.min(...xs) / MIB).toFixed(1)}–${(Math.max(...xs) / MIB).toFixed(1)} MiB`;

/** RSS and fds from the first sample after warm-up (the first multiple of `every`) to the last. */
function drift(r: ShmLeakResult): string {
  const warm = r.samples.find((s) => s.cycle > 0);
  const last = r.samples.at(-1);
  if (warm === undefined || last === undefined || warm === last) {
    return `${r.protocol}: too few samples to judge.`;
  }
  const rss = (last.rssBytes - warm.rssBytes) / MIB;
  const after = r.samples.filter((s) => s.cycle >= warm.cycle).map((s) => s.rssBytes);
  const half = Math.ceil(after.length / 2);
  const halves =
    after.length < 4
      ? ''
      : `; RSS ${range(after.slice(0, half))} over the first half, ` +
        `${range(after.slice(half))} over the second`;
  return (
    `${r.protocol}: from cycle ${warm.cycle} to ${last.cycle}, RSS ${rss >= 0 ? '+' : ''}` +
    `${rss.toFixed(1)} MiB, open fds ${warm.fds} → ${last.fds}${halves}.`
  );
}
