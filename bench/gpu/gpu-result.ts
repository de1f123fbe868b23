// What the GPU checks record: gpu-ort-timing.json (bench/gpu-ort-timing.ts, raw ONNX Runtime on
// the CPU provider against WebGPU) and gpu-soak.json (bench/gpu-soak.ts, WebGPU instances under
// load with model cycles and /metrics samples). The writers check their objects against these
// types; bench/report/gpu-report.ts renders them.

import type { LatencySummary } from '../measure/latency-histogram.js';
import type { MachineInfo } from '../measure/machine-info.js';

/** One case of gpu-ort-timing: the CPU provider's timing, and WebGPU's or why it failed. */
export interface GpuTimingRow {
  readonly case: string;
  readonly cpuMeanMs: number;
  readonly cpuP50Ms: number;
  readonly webgpuMeanMs?: number;
  readonly webgpuP50Ms?: number;
  /** CPU mean over WebGPU mean: above 1, WebGPU was faster. */
  readonly speedup?: number;
  /** The largest |CPU - WebGPU| over the first output's elements. */
  readonly maxAbsDiff?: number;
  readonly webgpuError?: string;
}

export interface GpuOrtTiming {
  readonly bench: 'gpu-ort-timing';
  readonly machine: MachineInfo;
  /** Timed runs per case and provider, after 3 warm-up runs. */
  readonly runs: number;
  readonly rows: readonly GpuTimingRow[];
}

/** One scrape of /metrics: the first series of each of Triton's GPU families. */
export interface GpuMetricsSample {
  readonly atS: number;
  readonly values: Readonly<Record<string, number>>;
}

export interface GpuSoakResult {
  readonly bench: 'gpu-soak';
  readonly command: string;
  readonly machine: MachineInfo;
  readonly options: {
    readonly instances: number;
    readonly concurrency: number;
    readonly durationMs: number;
    readonly cycleMs: number;
    /** Rows per request. */
    readonly batch: number;
    readonly standIn: boolean;
  };
  /** True when the test-only CPU stand-in ran instead of WebGPU. */
  readonly standIn: boolean;
  readonly loadSeconds: number;
  readonly seconds: number;
  readonly requests: {
    readonly ok: number;
    readonly failed: number;
    readonly perSecond: number;
    readonly rowsPerSecond: number;
  };
  readonly latency: LatencySummary;
  readonly maxAbsDiffVsCpu: number;
  readonly cycles: { readonly ok: number; readonly failed: number };
  readonly serverAlive: boolean;
  readonly crashLines: readonly string[];
  readonly errors: readonly string[];
  readonly gpuMetrics: readonly GpuMetricsSample[];
  /** The server's last log lines. */
  readonly serverLogTail: readonly string[];
}
