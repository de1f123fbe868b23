// The bench/RESULTS.md section of the shared-memory comparison, from
// bench/results/shared-memory.json: per model and size, HTTP binary, gRPC and system shared memory
// side by side, and issue 28's two targets for the 64 MiB FP32 input checked in words.

import type { ShmResult, ShmRow } from '../shm/shm-result.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const MIB = 2 ** 20;
const size = (b: number): string => (b >= MIB ? `${(b / MIB).toFixed(0)} MiB` : `${b} B`);
const growth = (r: ShmRow): number => Math.max(0, r.peakBytes - r.idleBytes);

export function shmSection(result: ShmResult, source: string): string[] {
  const out: string[] = ['## Shared memory against HTTP binary and gRPC', ''];
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    '- **Workload:** for each row a fresh infernode (`--allow-client-shm=true`) serves N requests ' +
      'one at a time after one warm-up, through the TypeScript client: HTTP with the binary ' +
      'tensor extension, gRPC ModelInfer with raw contents, or system shared memory (input ' +
      'written once into a `/dev/shm` region registered before the run, output into a region, ' +
      "the request over HTTP names both). The server's VmRSS is sampled every 20 ms; growth is " +
      'the peak (with VmHWM) above its idle RSS before the first request. `ort-alone` is the ' +
      'floor: the same model and input in ONNX Runtime alone, in a process of its own with no ' +
      'server: loaded and warmed on a small input, then idle, then given the full input (which a ' +
      'server also holds once) and run N times; its growth is its peak (VmHWM) above that idle ' +
      'RSS over the first run, what one request needs (the server rows take their peak over all ' +
      'N, so the comparison leans towards the floor).',
    '',
  );
  out.push(
    markdownTable({
      headers: [
        'model',
        'tensor',
        'carrier',
        'N',
        'p50 ms',
        'p99 ms',
        'idle MiB',
        'peak growth MiB',
        'growth × tensor',
      ],
      rows: result.rows.map((r) => [
        r.model,
        size(r.tensorBytes),
        r.carrier,
        String(r.requests),
        r.p50Ms.toFixed(2),
        r.p99Ms.toFixed(2),
        (r.idleBytes / MIB).toFixed(0),
        (growth(r) / MIB).toFixed(1),
        `${(growth(r) / r.tensorBytes).toFixed(2)}×`,
      ]),
      align: alignColumns(9, [0, 1, 2]),
    }),
    '',
  );
  out.push(...targets(result.rows), '');
  return out;
}

/** Issue 28's targets at the 64 MiB FP32 input: p50 ≤ 0.5× HTTP binary's, growth ≤ 1× the tensor. */
function targets(rows: readonly ShmRow[]): string[] {
  const at = (carrier: ShmRow['carrier']) =>
    rows.find((r) => r.tensorBytes === 64 * MIB && r.carrier === carrier);
  const shm = at('shared-memory');
  const http = at('http-binary');
  if (shm === undefined || http === undefined) return ['Targets: no 64 MiB rows in this run.'];
  const ratio = shm.p50Ms / http.p50Ms;
  const times = growth(shm) / shm.tensorBytes;
  const alone = at('ort-alone');
  const floorTimes = alone === undefined ? undefined : growth(alone) / alone.tensorBytes;
  const floor =
    floorTimes === undefined
      ? ''
      : ` ONNX Runtime alone grows ${floorTimes.toFixed(2)}× the tensor running the same model ` +
        'on the same input with no server, the floor under any server' +
        (floorTimes > 1 ? ': the ≤ 1× target is out of reach for this model.' : '.');
  return [
    `Targets at 64 MiB: shared memory's p50 is ${ratio.toFixed(2)}× HTTP binary's ` +
      `(target ≤ 0.5×: ${ratio <= 0.5 ? 'met' : 'not met'}); its peak RSS growth is ` +
      `${times.toFixed(2)}× the tensor (target ≤ 1×: ${times <= 1 ? 'met' : 'not met'}).${floor}`,
  ];
}
