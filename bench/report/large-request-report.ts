// The bench/RESULTS.md section of the large-request memory bench, from
// bench/results/large-request.json: one row per set-up, RSS before, peak and after, and the peak
// above the baseline in multiples of the body (the target: about 2×).

import type { LargeResult } from '../large/large-result.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const MIB = 2 ** 20;
const mib = (b: number): string => (b / MIB).toFixed(0);

export function largeRequestSection(result: LargeResult, source: string): string[] {
  const out: string[] = [];
  out.push('## Memory for one large request', '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
  );
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    `- **Workload:** for each row a fresh infernode serves one request to \`${result.model}\` ` +
      '(FP32 identity, one instance); the body is either the binary tensor extension (a JSON ' +
      'header, then the raw FP32 bytes; outputs asked for as binary) or JSON text with one ' +
      '`0.5` per element, so the text and the tensor are the same size. "arena off" is the model ' +
      'config parameter `enable_mem_arena: "0"`. The bench samples the server\'s VmRSS every 20 ms ' +
      `(the peak also takes VmHWM) and reads it ${(result.settleMs / 1000).toFixed(0)} s after ` +
      'the answer.',
    '',
  );
  out.push(
    markdownTable({
      headers: [
        'front end',
        'body',
        'MiB',
        'arena',
        'status',
        'request ms',
        'RSS before, MiB',
        'peak, MiB',
        'after, MiB',
        'peak − before, × body',
        'after − before, MiB',
      ],
      rows: result.rows.map((r) => [
        r.frontEnd,
        r.encoding,
        mib(r.bodyBytes),
        r.arena ? 'on' : 'off',
        String(r.status ?? 'none'),
        r.requestMs.toFixed(0),
        mib(r.beforeBytes),
        mib(r.peakBytes),
        mib(r.afterBytes),
        `${((r.peakBytes - r.beforeBytes) / r.bodyBytes).toFixed(2)}×`,
        mib(r.afterBytes - r.beforeBytes),
      ]),
      align: alignColumns(11, [0, 1, 3]),
    }),
    '',
  );
  return out;
}
