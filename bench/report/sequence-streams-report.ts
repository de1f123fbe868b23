// What the streams bench publishes from bench/results/sequence-streams.json: a CSV of every probe
// of every search, and its section of bench/RESULTS.md (the sustained counts against the naive
// loop, the 10x target, and where the time goes).

import type { StreamProbe, StreamSearch, StreamsResult } from '../streams/streams-result.js';
import { cores, ratio } from './format.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

/** The target: the server sustains at least this many times the naive loop's streams. */
export const TARGET_RATIO = 10;

const f2 = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x) ? '' : x.toFixed(2);

export function streamsCsv(result: StreamsResult): string {
  const rows = [
    'target,streams,passed,attempt,steps,p50_ms,p90_ms,p99_ms,max_ms,steps_per_s,errors,server_cores,load_cores,other_cores,avg_batch,queue_us,compute_infer_us,request_us',
  ];
  for (const s of [...result.served, result.naive]) {
    for (const p of s.probes) {
      rows.push(
        [
          s.id,
          p.streams,
          p.passed,
          p.attempt,
          p.latency.count,
          f2(p.latency.p50Ms),
          f2(p.latency.p90Ms),
          f2(p.latency.p99Ms),
          f2(p.latency.maxMs),
          f2(p.stepsPerSecond),
          p.errors,
          p.serverCores === null ? '' : f2(p.serverCores),
          f2(p.loadCores),
          p.otherCores === null ? '' : f2(p.otherCores),
          f2(p.server?.avgBatchSize),
          f2(p.server?.avgQueueUs),
          f2(p.server?.avgComputeInferUs),
          f2(p.server?.avgRequestUs),
        ].join(','),
      );
    }
  }
  return `${rows.join('\n')}\n`;
}

/** The probe at the sustained count (the last passing one), if any passed. */
function atSustained(s: StreamSearch): StreamProbe | undefined {
  return s.probes.find((p) => p.passed && p.streams === s.sustained);
}

/** The first failing probe above the sustained count: what broke. */
function firstAbove(s: StreamSearch): StreamProbe | undefined {
  return s.probes
    .filter((p) => !p.passed && p.streams > s.sustained)
    .sort((a, b) => a.streams - b.streams)[0];
}

/** Server CPU time per answered step: what one request costs the server, all threads. */
function cpuPerStep(p: StreamProbe | undefined): string {
  if (p?.serverCores === null || p?.serverCores === undefined || p.stepsPerSecond === 0) return '–';
  return Math.round((p.serverCores * 1e6) / p.stepsPerSecond).toLocaleString('en-US');
}

function ms(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(1);
}

export function streamsSection(result: StreamsResult, source: string): string[] {
  const out: string[] = [];
  out.push('## Sequence batcher: real-time audio streams (`silero_vad`)', '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`; ` +
      'every probe is in `bench/results/sequence-streams.csv`.',
    '',
  );
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    `- **Workload:** N concurrent 16 kHz streams, each sending one 512-sample chunk (32 ms of audio) ` +
      `per request at its ${result.periodMs} ms tick, or as soon as the previous chunk is answered if that is later. ` +
      'Every stream is a run of real sequences (one per clip of `test/fixtures/audio/`, start flag on the first chunk, end flag on the last). ' +
      `Served configs: infernode over WebSocket msgpack with binary tensors, the streams multiplexed over ${result.connections} sockets ` +
      'by a load generator in its own process; a fresh server per config, alone on the machine. ' +
      "Naive loop: one onnxruntime-node session of the package's original model in one process, batch 1, one run at a time, state carried by hand, paced the same way.",
    `- **Rule:** a count is sustained when, over a ${result.measureMs / 1000} s window after ${result.warmupMs / 1000} s of warm-up, ` +
      `p99 step latency (send -> answer) is under ${result.p99LimitMs} ms, no step fails, and the answered steps keep up with real time (>= 95 %). ` +
      'The count is found by doubling, then bisecting (to within `--resolution` of the command, 10 % by default).',
    '- **Shared cores:** the load generator (or the naive loop) and the server share the same 2 cores; the load column is what the generator used. ' +
      `The machine is also shared with other work: a failed probe during which other processes used more than 0.25 cores was measured again (up to 2 times), and every probe first waited (up to 30 s) for a quiet second; "other cores" is what they used during the probe.`,
    '',
  );
  const naive = result.naive.sustained;
  const rows = [...result.served, result.naive].map((s) => {
    const p = atSustained(s);
    return [
      s.label,
      String(s.sustained),
      ms(p?.latency.p50Ms),
      ms(p?.latency.p99Ms),
      p === undefined ? '–' : Math.round(p.stepsPerSecond).toLocaleString('en-US'),
      p?.server === null || p?.server === undefined ? '–' : p.server.avgBatchSize.toFixed(1),
      cores(p?.serverCores ?? null),
      cpuPerStep(p),
      p === undefined ? '–' : p.loadCores.toFixed(2),
      cores(p?.otherCores ?? null),
      s.id === 'naive' ? '1×' : ratio(s.sustained, naive),
    ];
  });
  out.push(
    markdownTable({
      headers: [
        'config',
        'streams sustained',
        'p50 ms',
        'p99 ms',
        'steps/s',
        'avg batch',
        'server cores',
        'server CPU µs/step',
        'load cores',
        'other cores',
        'vs naive',
      ],
      rows,
      align: alignColumns(12),
    }),
    '',
  );
  for (const s of result.served.filter((x) => x.id === 'oldest' || x.id === 'direct')) {
    const r = naive > 0 ? s.sustained / naive : NaN;
    out.push(
      `- **Target (>= ${TARGET_RATIO}× the naive loop's streams), ${s.id}:** ` +
        (Number.isFinite(r)
          ? `${r >= TARGET_RATIO ? 'met' : 'not met'} (${s.sustained} vs ${naive}, ${r.toFixed(1)}×).`
          : 'no naive figure in this run.'),
    );
  }
  out.push('');
  out.push('What broke just above each sustained count (the first failing probe):', '');
  out.push(
    markdownTable({
      headers: [
        'config',
        'streams',
        'p50 ms',
        'p99 ms',
        'steps/s of real time',
        'avg batch',
        'queue µs',
        'infer µs/request',
        'server cores',
        'other cores',
      ],
      rows: [...result.served, result.naive].flatMap((s) => {
        const p = firstAbove(s);
        if (p === undefined) return [];
        const realTime = p.streams * (1000 / result.periodMs);
        return [
          [
            s.label,
            String(p.streams),
            ms(p.latency.p50Ms),
            ms(p.latency.p99Ms),
            `${Math.round((100 * p.stepsPerSecond) / realTime)} %`,
            p.server === null ? '–' : p.server.avgBatchSize.toFixed(1),
            p.server === null ? '–' : Math.round(p.server.avgQueueUs).toLocaleString('en-US'),
            p.server === null
              ? '–'
              : Math.round(p.server.avgComputeInferUs).toLocaleString('en-US'),
            cores(p.serverCores),
            cores(p.otherCores),
          ],
        ];
      }),
      align: alignColumns(10),
    }),
    '',
  );
  out.push(
    'Model compute alone (in-process `session.run`, default session options, no server): what batching can buy per row.',
    '',
  );
  out.push(
    markdownTable({
      headers: ['model', 'batch', 'ms per run', 'µs per row'],
      rows: result.compute.map((c) => [
        c.model === 'wrapped' ? 'wrapped (served)' : 'original (naive loop)',
        String(c.batch),
        c.msPerRun.toFixed(3),
        c.usPerRow.toFixed(1),
      ]),
      align: ['left', 'right', 'right', 'right'],
    }),
    '',
  );
  return out;
}
