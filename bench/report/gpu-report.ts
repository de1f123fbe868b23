// The bench/RESULTS.md section of the GPU checks run on a GPU host (bench/gpu/gpu-check.sh), from
// the files of one bench/results/gpu-<host>/ folder: the machine with its GPU, raw ONNX Runtime
// timings (CPU provider against WebGPU), the WebGPU soak with the GPU metrics it scraped, and the
// OCR pipeline's set-ups, each OCR run against the CPU set-up it measured first.

import type { GpuOrtTiming, GpuSoakResult } from '../gpu/gpu-result.js';
import type { OcrResult } from '../ocr/ocr-result.js';
import { bytes, rate } from './format.js';
import { speedUp } from './ocr-report.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

/** One OCR run (one bench:ocr --compare-gpu result file) and how the section names it. */
export interface GpuOcrRun {
  /** The result file, relative to the repository root. */
  readonly source: string;
  /** What the run compared, as its rows name it. */
  readonly label: string;
  /** What the result file does not record about the run (a hand edit); null when nothing. */
  readonly note: string | null;
  readonly result: OcrResult;
}

export interface GpuResults {
  /** The folder, relative to the repository root. */
  readonly folder: string;
  /** The GPU's model, e.g. "NVIDIA H200"; null when no file names it. */
  readonly gpu: string | null;
  readonly timing: GpuOrtTiming | null;
  readonly soak: GpuSoakResult | null;
  readonly ocr: readonly GpuOcrRun[];
}

export const KIT_COMMANDS =
  '`bash bench/gpu/pack-kit.sh` packs what the checks need (Node, the built app, the models) ' +
  'on a machine with Node and a network; on the GPU host, `bash bench/gpu/gpu-check.sh base <out>` ' +
  'runs the raw timings (`node dist/bench/cli.js gpu-timing --runs 20 --out <out>`) and the soak, ' +
  'then `bash bench/gpu/gpu-check.sh ocr <out>` the OCR comparison';

const fixed = (x: number, digits: number): string => x.toFixed(digits);
const msOf = (us: number): string => (us / 1000).toFixed(us < 100_000 ? 1 : 0);

/** "an NVIDIA H200", "a GeForce …": the article as the name is said. */
function withArticle(name: string): string {
  return `${/^(NVIDIA|AMD|Intel|[AEIOU])/i.test(name) ? 'an' : 'a'} ${name}`;
}

export function gpuSectionTitle(gpu: string | null): string {
  return gpu === null ? 'GPU (WebGPU)' : `GPU (WebGPU on ${withArticle(gpu)})`;
}

function timingTable(t: GpuOrtTiming): string[] {
  const headers = [
    'case',
    'CPU ms',
    'CPU p50 ms',
    'WebGPU ms',
    'WebGPU p50 ms',
    'speed-up',
    'max |diff|',
  ];
  const opt = (x: number | undefined, f: (v: number) => string): string =>
    x === undefined ? '–' : f(x);
  const ms3 = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));
  const out = [
    markdownTable({
      headers,
      rows: t.rows.map((r) => [
        r.case,
        ms3(r.cpuMeanMs),
        ms3(r.cpuP50Ms),
        opt(r.webgpuMeanMs, ms3),
        opt(r.webgpuP50Ms, ms3),
        opt(r.speedup, (x) => `${fixed(x, 2)}×`),
        opt(r.maxAbsDiff, (x) => x.toExponential(1)),
      ]),
      align: alignColumns(headers.length),
    }),
    '',
  ];
  const failed = t.rows.filter((r) => r.webgpuError !== undefined);
  if (failed.length > 0) {
    out.push(...failed.map((r) => `- **${r.case}, WebGPU failed:** ${r.webgpuError ?? ''}`), '');
  }
  return out;
}

/** The smallest and largest value of a metrics family over the samples; null when none has it. */
export function metricRange(
  soak: GpuSoakResult,
  family: string,
): { min: number; max: number; first: number; last: number } | null {
  const values = soak.gpuMetrics
    .map((s) => s.values[family])
    .filter((v): v is number => v !== undefined && Number.isFinite(v));
  const first = values[0];
  const last = values[values.length - 1];
  if (first === undefined || last === undefined) return null;
  return { min: Math.min(...values), max: Math.max(...values), first, last };
}

function soakLines(s: GpuSoakResult): string[] {
  const o = s.options;
  const out: string[] = [];
  out.push(
    `**The soak** (\`${s.command}\`): ${o.instances} ${s.standIn ? 'stand-in (CPU) ' : 'WebGPU '}` +
      `instances of \`mlp\` under ${o.concurrency} HTTP clients sending ${o.batch} rows a request ` +
      `for ${fixed(s.seconds, 1)} s, while a second WebGPU model is loaded, used and unloaded every ` +
      `${o.cycleMs / 1000} s; every answer is compared with the CPU's for the same rows ` +
      `(largest difference ${s.maxAbsDiffVsCpu.toExponential(1)}).`,
    '',
  );
  const headers = [
    'requests ok',
    'failed',
    'req/s',
    'rows/s',
    'p50 ms',
    'p99 ms',
    'cycles ok',
    'cycles failed',
    'server up at the end',
  ];
  out.push(
    markdownTable({
      headers,
      rows: [
        [
          s.requests.ok.toLocaleString('en-US'),
          String(s.requests.failed),
          rate(s.requests.perSecond),
          rate(s.requests.rowsPerSecond),
          msOf(s.latency.p50Us),
          msOf(s.latency.p99Us),
          String(s.cycles.ok),
          String(s.cycles.failed),
          s.serverAlive && s.crashLines.length === 0 ? 'yes' : 'no',
        ],
      ],
      align: alignColumns(headers.length, [8]),
    }),
    '',
  );
  const metrics: string[] = [];
  const util = metricRange(s, 'nv_gpu_utilization');
  if (util !== null)
    metrics.push(
      `\`nv_gpu_utilization\` ${fixed(util.min * 100, 0)}–${fixed(util.max * 100, 0)} %`,
    );
  const used = metricRange(s, 'nv_gpu_memory_used_bytes');
  const total = metricRange(s, 'nv_gpu_memory_total_bytes');
  if (used !== null)
    metrics.push(
      `\`nv_gpu_memory_used_bytes\` ${bytes(used.min)}–${bytes(used.max)}` +
        (total === null ? '' : ` of ${fixed(total.max / 1024 ** 3, 1)} GiB`),
    );
  const power = metricRange(s, 'nv_gpu_power_usage');
  if (power !== null)
    metrics.push(`\`nv_gpu_power_usage\` ${fixed(power.min, 0)}–${fixed(power.max, 0)} W`);
  const energy = metricRange(s, 'nv_energy_consumption');
  if (energy !== null) {
    // The server says when the driver has no energy counter and the figure is integrated instead.
    const integrated = s.serverLogTail.some((l) => l.includes('power.draw integrated'));
    metrics.push(
      `\`nv_energy_consumption\` ${rate(energy.first)} J at the first sample, ` +
        `${rate(energy.last)} J at the last` +
        (integrated
          ? " (this driver's nvidia-smi has no total_energy_consumption: infernode integrates power.draw over time)"
          : ''),
    );
  }
  if (metrics.length > 0) {
    out.push(
      `- **GPU metrics** (${s.gpuMetrics.length} scrapes of /metrics, 5 s apart): ${metrics.join('; ')}.`,
    );
  }
  if (s.errors.length > 0) out.push(`- **Errors:** ${s.errors.slice(0, 3).join('; ')}`);
  if (s.crashLines.length > 0)
    out.push(`- **Crash lines:** ${s.crashLines.slice(0, 3).join('; ')}`);
  if (out[out.length - 1] !== '') out.push('');
  return out;
}

function ocrLines(runs: readonly GpuOcrRun[]): string[] {
  const out: string[] = [];
  out.push(
    "**The OCR pipeline** (the bundled `ocr` model, as in the OCR pipeline's section): each run " +
      'measures the bundled CPU configs first, then a WebGPU set-up, each on a fresh server; ' +
      '"vs cpu" is images/s over the same run\'s CPU figure at the same number of clients.',
    '',
  );
  for (const r of runs) {
    out.push(
      `- **${r.label}:** \`${r.result.command}\` (${r.result.startedAt.slice(0, 10)}), ` +
        `\`${r.source}\`${r.note === null ? '' : `. ${r.note}`}`,
    );
    for (const s of r.result.setups) {
      if (s.unavailable !== null) out.push(`  - ${s.name} unavailable: ${s.unavailable}`);
    }
  }
  out.push('');
  const headers = [
    'run',
    'set-up',
    'clients',
    'images/s',
    'vs cpu',
    'p50 ms',
    'p99 ms',
    'misread',
    'errors',
  ];
  const rows = runs.flatMap((r) =>
    r.result.setups.flatMap((s) =>
      s.levels.map((l) => {
        const x = speedUp(r.result, s, l);
        return [
          r.label,
          s.name,
          String(l.concurrency),
          fixed(l.imagesPerSecond, 2),
          s === r.result.setups[0] ? '1×' : x === null ? '–' : `${fixed(x, 2)}×`,
          msOf(l.latency.p50Us),
          msOf(l.latency.p99Us),
          String(l.misread),
          String(l.errors),
        ];
      }),
    ),
  );
  if (rows.length > 0) {
    out.push(markdownTable({ headers, rows, align: alignColumns(headers.length, [0, 1]) }), '');
  }
  return out;
}

/** The section; empty when the folder holds none of the files. */
export function gpuSection(g: GpuResults): string[] {
  const machine = g.timing?.machine ?? g.soak?.machine ?? g.ocr[0]?.result.machine;
  if (machine === undefined) return [];
  const out: string[] = [];
  out.push(`## ${gpuSectionTitle(g.gpu)}`, '');
  out.push(`Measured on a GPU host: ${KIT_COMMANDS}. Rendered from \`${g.folder}/\`.`, '');
  out.push(
    `- **Machine:** ${machineLineOf(machine)}${g.gpu === null ? '' : `; GPU: ${g.gpu}`}`,
    `- **Code:** ${commitLineOf(machine)}`,
    '',
  );
  if (g.timing !== null) {
    out.push(
      `**Raw ONNX Runtime, no server** (\`gpu-ort-timing.json\`): one session per provider, the ` +
        `CPU provider with ${machine.cpus} threads against WebGPU; mean and p50 of ` +
        `${g.timing.runs} runs after 3 warm-up runs; speed-up is the CPU mean over the WebGPU ` +
        "mean; max |diff| is the largest difference between the two providers' outputs.",
      '',
      ...timingTable(g.timing),
    );
  }
  if (g.soak !== null) out.push(...soakLines(g.soak));
  if (g.ocr.length > 0) out.push(...ocrLines(g.ocr));
  return out;
}
