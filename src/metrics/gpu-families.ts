// Triton's GPU families (nv_gpu_*, nv_energy_consumption), one series per GPU labelled `gpu_uuid`
// only, as Triton's (DCGM) are, read from nvidia-smi (gpu-metrics.ts) at each scrape. Created by
// `watch`, so a server without GPU metrics (--allow-gpu-metrics=false) has not even their HELP lines.

import { Counter, Gauge } from 'prom-client';
import { FamilyGroup } from './family-group.js';
import type { GpuReading, GpuSample } from './gpu-sample.js';

export class GpuFamilies extends FamilyGroup {
  /** Whether `watch` created the GPU families (once per registry). */
  #watched = false;

  /** Creates the families (once), read at each scrape. A figure a GPU does not report has no series. */
  watch(read: () => readonly GpuReading[]): void {
    if (this.#watched) return;
    this.#watched = true;
    const gauge = (
      name: string,
      help: string,
      value: (s: GpuSample) => number | undefined,
    ): void => {
      const family: Gauge<'gpu_uuid'> = new Gauge<'gpu_uuid'>({
        name,
        help,
        labelNames: ['gpu_uuid'],
        registers: [this.registry],
        collect: () => {
          // Reset first: a GPU whose figure went [N/A], or nvidia-smi restarting, drops its series.
          family.reset();
          for (const g of read()) {
            const v = g.sample === undefined ? undefined : value(g.sample);
            if (v !== undefined) family.set({ gpu_uuid: g.uuid }, v);
          }
        },
      });
    };
    // Triton's names and help texts (core/src/metrics.cc).
    gauge('nv_gpu_utilization', 'GPU utilization rate [0.0 - 1.0)', (s) => s.utilization);
    gauge('nv_gpu_memory_total_bytes', 'GPU total memory, in bytes', (s) => s.memoryTotalBytes);
    gauge('nv_gpu_memory_used_bytes', 'GPU used memory, in bytes', (s) => s.memoryUsedBytes);
    gauge('nv_gpu_power_usage', 'GPU power usage in watts', (s) => s.powerWatts);
    gauge('nv_gpu_power_limit', 'GPU power management limit in watts', (s) => s.powerLimitWatts);
    const energy: Counter<'gpu_uuid'> = new Counter<'gpu_uuid'>({
      name: 'nv_energy_consumption',
      help: 'GPU energy consumption in joules since the Triton Server started',
      labelNames: ['gpu_uuid'],
      registers: [this.registry],
      collect: () => {
        // The total is kept by EnergyTotal (it never goes back); the counter shows it as it is.
        energy.reset();
        for (const g of read()) {
          if (g.energyJoules !== undefined) energy.inc({ gpu_uuid: g.uuid }, g.energyJoules);
        }
      },
    });
  }
}
