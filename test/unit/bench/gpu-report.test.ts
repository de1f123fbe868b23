// The GPU hosts' section of bench/RESULTS.md, from hand-made results: the title with the GPU, the
// machine, the raw timing table (with a case WebGPU failed), the soak's row and the ranges of the
// GPU metrics it scraped, the OCR runs against their own CPU rows; read from a gpu-<host> folder,
// and no section without one.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { GpuOrtTiming, GpuSoakResult } from '../../../bench/gpu/gpu-result.js';
import { newHistogram, recordUs, summarize } from '../../../bench/measure/latency-histogram.js';
import { OCR_SCHEMA, type OcrLevel, type OcrResult } from '../../../bench/ocr/ocr-result.js';
import { gpuSection, gpuSectionTitle, type GpuResults } from '../../../bench/report/gpu-report.js';
import {
  gpuFromLog,
  readGpuResults,
  renderGpuResults,
} from '../../../bench/report/gpu-results-files.js';

function latency(values: number[]) {
  const h = newHistogram();
  for (const v of values) recordUs(h, v);
  return summarize(h);
}

const MACHINE = {
  cpuModel: 'Test CPU',
  cpus: 16,
  memoryBytes: 128 * 1024 ** 3,
  os: 'Linux 6.0',
  arch: 'x64',
  node: 'v20.0.0',
  onnxruntimeNode: '1.30.0',
  infernode: '0.1.0',
  commit: '0123456789abcdef0123',
  dirty: true,
};

const TIMING: GpuOrtTiming = {
  bench: 'gpu-ort-timing',
  machine: MACHINE,
  runs: 20,
  rows: [
    {
      case: 'mlp batch 1',
      cpuMeanMs: 0.1,
      cpuP50Ms: 0.08,
      webgpuMeanMs: 1.25,
      webgpuP50Ms: 1.3,
      speedup: 0.08,
      maxAbsDiff: 3.2e-8,
    },
    {
      case: 'ocr_detector 640x640',
      cpuMeanMs: 34.8,
      cpuP50Ms: 34.6,
      webgpuMeanMs: 7.3,
      webgpuP50Ms: 7.29,
      speedup: 34.8 / 7.3,
      maxAbsDiff: 1.36e-7,
    },
    { case: 'mlp batch 8192', cpuMeanMs: 12.6, cpuP50Ms: 12.5, webgpuError: 'no adapter' },
  ],
};

const sample = (atS: number, util: number, usedMiB: number, joules: number) => ({
  atS,
  values: {
    nv_gpu_utilization: util,
    nv_gpu_memory_total_bytes: 140 * 1024 ** 3,
    nv_gpu_memory_used_bytes: usedMiB * 1024 ** 2,
    nv_gpu_power_usage: 80,
    nv_energy_consumption: joules,
  },
});

const SOAK: GpuSoakResult = {
  bench: 'gpu-soak',
  command: 'node dist/bench/gpu-soak.js --instances 4',
  machine: MACHINE,
  options: {
    instances: 4,
    concurrency: 16,
    durationMs: 120_000,
    cycleMs: 20_000,
    batch: 8,
    standIn: false,
  },
  standIn: false,
  loadSeconds: 0.9,
  seconds: 121.4,
  requests: { ok: 58_739, failed: 0, perSecond: 483.7, rowsPerSecond: 3869.5 },
  latency: latency([32_000, 33_000, 42_000]),
  maxAbsDiffVsCpu: 1.3e-7,
  cycles: { ok: 6, failed: 0 },
  serverAlive: true,
  crashLines: [],
  errors: [],
  gpuMetrics: [sample(0, 0, 56, 0), sample(5, 0.32, 102, 500), sample(10, 0.25, 80, 9587)],
  serverLogTail: ['… nv_energy_consumption is power.draw integrated over time instead'],
};

const level = (concurrency: number, imagesPerSecond: number): OcrLevel => ({
  concurrency,
  seconds: 10,
  images: Math.round(imagesPerSecond * 10),
  imagesPerSecond,
  misread: 0,
  errors: 0,
  latency: latency([140_000, 150_000, 200_000]),
  steps: [],
});

const OCR: OcrResult = {
  schema: OCR_SCHEMA,
  command: 'node dist/bench/ocr.js --compare-gpu --config-name webgpu_det',
  startedAt: '2026-01-02T03:04:05.000Z',
  machine: MACHINE,
  gpus: ['NVIDIA H200'],
  images: [],
  setups: [
    { name: 'cpu', configName: null, unavailable: null, levels: [level(1, 7.5)] },
    {
      name: 'webgpu_det',
      configName: 'webgpu_det',
      unavailable: null,
      levels: [level(1, 9)],
    },
  ],
};

const RESULTS: GpuResults = {
  folder: 'bench/results/gpu-test',
  gpu: 'NVIDIA H200',
  timing: TIMING,
  soak: SOAK,
  ocr: [
    {
      source: 'bench/results/gpu-test/ocr-webgpu-det.json',
      label: 'detector on WebGPU',
      note: 'A hand-made config.',
      result: OCR,
    },
  ],
};

/** The cells of the first table row whose first cells are `first`. */
function rowCells(text: string, ...first: string[]): string[] {
  const row = text
    .split('\n')
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .find((cells) => first.every((f, i) => cells[i] === f));
  assert.ok(row !== undefined, `no row ${first.join(' | ')} in\n${text}`);
  return row;
}

void describe('the GPU section of RESULTS.md', () => {
  void it('is titled by the GPU, with the machine, the commit and the commands', () => {
    const text = gpuSection(RESULTS).join('\n');
    assert.match(text, /^## GPU \(WebGPU on an NVIDIA H200\)$/m);
    assert.match(
      text,
      /- \*\*Machine:\*\* 16 × Test CPU, .*onnxruntime-node 1\.30\.0; GPU: NVIDIA H200/,
    );
    assert.match(text, /- \*\*Code:\*\* infernode 0\.1\.0 at 0123456789ab \(with uncommitted/);
    assert.match(text, /`bash bench\/gpu\/pack-kit\.sh`/);
    assert.match(text, /`bash bench\/gpu\/gpu-check\.sh base <out>`/);
    assert.match(text, /`bash bench\/gpu\/gpu-check\.sh ocr <out>`/);
    assert.match(text, /Rendered from `bench\/results\/gpu-test\/`/);
    assert.equal(gpuSectionTitle(null), 'GPU (WebGPU)');
    assert.equal(gpuSectionTitle('GeForce RTX 4090'), 'GPU (WebGPU on a GeForce RTX 4090)');
  });

  void it('tables the raw timings, and says which case WebGPU failed', () => {
    const text = gpuSection(RESULTS).join('\n');
    assert.match(text, /CPU provider with 16 threads against WebGPU; mean and p50 of 20 runs/);
    assert.deepEqual(rowCells(text, 'ocr_detector 640x640'), [
      'ocr_detector 640x640',
      '34.8',
      '34.6',
      '7.30',
      '7.29',
      '4.77×',
      '1.4e-7',
    ]);
    assert.deepEqual(rowCells(text, 'mlp batch 8192').slice(3), ['–', '–', '–', '–']);
    assert.match(text, /- \*\*mlp batch 8192, WebGPU failed:\*\* no adapter/);
  });

  void it('summarises the soak and the ranges of the GPU metrics it scraped', () => {
    const text = gpuSection(RESULTS).join('\n');
    assert.match(text, /`node dist\/bench\/gpu-soak\.js --instances 4`\): 4 WebGPU instances/);
    const headers = rowCells(text, 'requests ok');
    const row = rowCells(text, '58,739');
    assert.deepEqual(Object.fromEntries(headers.map((h, i) => [h, row[i]])), {
      'requests ok': '58,739',
      failed: '0',
      'req/s': '484',
      'rows/s': '3,870',
      'p50 ms': '33.0',
      'p99 ms': '42.0',
      'cycles ok': '6',
      'cycles failed': '0',
      'server up at the end': 'yes',
    });
    assert.match(text, /3 scrapes of \/metrics/);
    assert.match(text, /`nv_gpu_utilization` 0–32 %/);
    assert.match(text, /`nv_gpu_memory_used_bytes` 56\.0 MiB–102\.0 MiB of 140\.0 GiB/);
    assert.match(text, /`nv_energy_consumption` 0 J at the first sample, 9,587 J at the last/);
    assert.match(text, /integrates power\.draw over time/);
    const down = gpuSection({ ...RESULTS, soak: { ...SOAK, serverAlive: false } }).join('\n');
    assert.equal(rowCells(down, '58,739')[8], 'no');
  });

  void it('rows each OCR run with its own CPU figures, the speed-up and its note', () => {
    const text = gpuSection(RESULTS).join('\n');
    assert.deepEqual(rowCells(text, 'detector on WebGPU', 'cpu', '1').slice(3, 5), ['7.50', '1×']);
    assert.deepEqual(rowCells(text, 'detector on WebGPU', 'webgpu_det', '1').slice(3, 7), [
      '9.00',
      '1.20×',
      '150',
      '200',
    ]);
    assert.match(
      text,
      /- \*\*detector on WebGPU:\*\* `node dist\/bench\/ocr\.js --compare-gpu --config-name webgpu_det` \(2026-01-02\), `bench\/results\/gpu-test\/ocr-webgpu-det\.json`\. A hand-made config\./,
    );
  });

  void it('renders nothing from an empty folder, and only the parts it has', () => {
    const empty: GpuResults = { ...RESULTS, timing: null, soak: null, ocr: [] };
    assert.deepEqual(gpuSection(empty), []);
    const soakOnly = gpuSection({ ...empty, soak: SOAK }).join('\n');
    assert.match(soakOnly, /The soak/);
    assert.doesNotMatch(soakOnly, /Raw ONNX Runtime|The OCR pipeline/);
  });
});

void describe('the GPU hosts’ folders', () => {
  void it('finds the GPU in a gpu-check log’s nvidia-smi -L line', () => {
    assert.equal(
      gpuFromLog('v20.20.2\n16\nGPU 0: NVIDIA H200 (UUID: GPU-73b1c4c7)\n== 1.'),
      'NVIDIA H200',
    );
    assert.equal(gpuFromLog('no GPU here'), null);
  });

  void it('reads a gpu-<host> folder, and gives no section without one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-gpu-report-'));
    try {
      assert.deepEqual(await renderGpuResults(dir), []);
      assert.deepEqual(await renderGpuResults(path.join(dir, 'missing')), []);
      const host = path.join(dir, 'gpu-test');
      await mkdir(host);
      await writeFile(path.join(host, 'gpu-ort-timing.json'), JSON.stringify(TIMING));
      await writeFile(path.join(host, 'ocr-webgpu-det-8.json'), JSON.stringify(OCR));
      await writeFile(path.join(host, 'ocr-extra.json'), JSON.stringify(OCR));
      const read = await readGpuResults(host);
      assert.equal(read.gpu, 'NVIDIA H200');
      assert.equal(read.soak, null);
      assert.deepEqual(
        read.ocr.map((r) => r.label),
        ['detector on WebGPU, 8 `ocr` instances (run 1)', 'ocr-extra'],
      );
      assert.match(read.ocr[0]?.note ?? '', /instance count was also raised by hand/);
      const text = (await renderGpuResults(dir)).join('\n');
      assert.match(text, /^## GPU \(WebGPU on an NVIDIA H200\)$/m);
      await writeFile(path.join(host, 'gpu-soak.json'), JSON.stringify({ bench: 'other' }));
      await assert.rejects(readGpuResults(host), /expected bench gpu-soak, got other/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
