// The metrics flags: Prometheus on its own port, with Triton's GPU and host CPU readings.

import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const METRICS_FLAGS = {
  'allow-metrics': { kind: 'bool', help: 'Serve Prometheus metrics (true)' },
  'allow-gpu-metrics': {
    kind: 'bool',
    help: 'Export GPU metrics (nv_gpu_*, nv_energy_consumption) read from nvidia-smi, where it exists (true)',
  },
  'allow-cpu-metrics': {
    kind: 'bool',
    help: 'Export host CPU metrics (nv_cpu_utilization, nv_cpu_memory_*) read from /proc (true)',
  },
  'metrics-interval-ms': {
    kind: 'uint',
    help: 'Milliseconds between GPU, CPU and per-thread metric readings (2000)',
  },
  'metrics-address': { kind: 'string', help: 'Metrics address (defaults to --http-address)' },
  'metrics-port': { kind: 'port', help: 'Prometheus metrics port (8002)' },
} as const satisfies FlagTable;

type MetricsOptions = Pick<
  ServerOptions,
  | 'allowMetrics'
  | 'allowGpuMetrics'
  | 'allowCpuMetrics'
  | 'metricsIntervalMs'
  | 'metricsAddress'
  | 'metricsPort'
>;

/** The metrics options; the address, when not given, is the HTTP one (as Triton's). */
export function metricsOptions(
  read: FlagReader<keyof typeof METRICS_FLAGS>,
  httpAddress: string,
): MetricsOptions {
  const allowMetrics = read.bool('allow-metrics', DEFAULT_OPTIONS.allowMetrics);
  for (const n of ['allow-gpu-metrics', 'metrics-interval-ms', 'allow-cpu-metrics'] as const) {
    if (read.has(n) && !allowMetrics) read.warn(`--${n} is ignored with --allow-metrics=false`);
  }
  return {
    allowMetrics,
    allowGpuMetrics: read.bool('allow-gpu-metrics', DEFAULT_OPTIONS.allowGpuMetrics),
    allowCpuMetrics: read.bool('allow-cpu-metrics', DEFAULT_OPTIONS.allowCpuMetrics),
    // A day at most: a slip of the keyboard should not stop the readings for good.
    metricsIntervalMs: read.positive(
      'metrics-interval-ms',
      DEFAULT_OPTIONS.metricsIntervalMs,
      86_400_000,
    ),
    metricsAddress: read.last('metrics-address') ?? httpAddress,
    metricsPort: read.uint('metrics-port', DEFAULT_OPTIONS.metricsPort, 65535),
  };
}
