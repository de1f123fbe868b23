// The metrics flags: Prometheus on its own port, with Triton's GPU and host CPU readings.

import type { FlagTable } from './flag-spec.js';

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
