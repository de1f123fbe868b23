// The server process's own families, not any model's: the client-memory budget, each live thread's
// event loop and heap, resident memory, the host's CPU and memory (Triton's nv_cpu_*), the front-end
// threads and dropped trace spans.

import { Counter, Gauge } from 'prom-client';
import { FamilyGroup } from './family-group.js';
import type { HostReading } from './host-sample.js';
import { ThreadMetrics } from './thread-metrics.js';
import type { ThreadReading } from './thread-sampler.js';

export class ProcessFamilies extends FamilyGroup {
  /** Reads the client-memory budget's reservations; set once by the server (watchClientMemory). */
  #clientMemory: () => number = () => 0;

  /**
   * Bytes held for clients — unread answers, stream windows, HTTP request bodies being read — over
   * every gRPC stream, WebSocket and HTTP request (--client-memory-budget, docs/operations.md
   * "Hostile clients"). Not Triton's.
   */
  readonly clientMemoryReserved = new Gauge({
    name: 'infernode_client_memory_reserved_bytes',
    help: 'Bytes reserved from --client-memory-budget: answers clients have not read, stream windows, HTTP request bodies',
    registers: [this.registry],
    collect: (): void => this.clientMemoryReserved.set(this.#clientMemory()),
  });

  /** Makes infernode_client_memory_reserved_bytes report `read()`. */
  watchClientMemory(read: () => number): void {
    this.#clientMemory = read;
  }

  /** Every live thread's readings and the host's, taken each --metrics-interval-ms. */
  readonly threads = new ThreadMetrics();

  // Per-thread figures, one series per live thread (thread-metrics.ts says which labels): where the
  // one-thread ceiling shows, a main thread at utilization 1 while workers idle.
  readonly threadUtilization = this.threadGauge(
    'infernode_thread_event_loop_utilization',
    'Event-loop utilization (0..1) of each thread over the last metrics interval; for a model-instance worker, the share of time spent running its model',
    (r) => r.utilization,
  );
  readonly threadDelay = this.threadGauge(
    'infernode_thread_event_loop_delay_p99_seconds',
    'p99 of the event-loop delay of the main and each front-end thread over the last metrics interval, in seconds',
    (r) => r.delayP99Seconds,
  );
  readonly threadHeap = this.threadGauge(
    'infernode_thread_heap_used_bytes',
    "V8 heap in use by each thread (its own isolate's), in bytes",
    (r) => r.heapUsedBytes,
  );
  /** The process's resident memory: every thread's heap, ORT's buffers and shared memory. */
  readonly residentMemory = new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers: [this.registry],
    collect: (): void => this.residentMemory.set(process.memoryUsage.rss()),
  });

  /** Whether watchCpu created the host CPU families (once per registry). */
  #cpuFamilies = false;

  /**
   * Triton's host CPU families (--allow-cpu-metrics), read on the metrics interval (host-sample.ts
   * computes them as Triton does). Created by `watchCpu`, so a server without CPU metrics has not
   * even their HELP lines.
   */
  watchCpu(): void {
    if (this.#cpuFamilies) return;
    this.#cpuFamilies = true;
    const gauge = (name: string, help: string, value: (h: HostReading) => number): void => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers: [this.registry],
        collect: (): void => {
          const host = this.threads.host;
          if (host !== undefined) g.set(value(host));
        },
      });
    };
    // Triton's names and help texts (core/src/metrics.cc).
    gauge('nv_cpu_utilization', 'CPU utilization rate [0.0 - 1.0]', (h) => h.cpuUtilization);
    gauge(
      'nv_cpu_memory_total_bytes',
      'CPU total memory (RAM), in bytes',
      (h) => h.memoryTotalBytes,
    );
    gauge('nv_cpu_memory_used_bytes', 'CPU used memory (RAM), in bytes', (h) => h.memoryUsedBytes);
  }

  /** Threads accepting HTTP and WebSocket connections (--http-thread-count), the main one included. */
  readonly frontEndThreads = new Gauge({
    name: 'infernode_frontend_threads',
    help: 'Threads accepting HTTP and WebSocket connections (--http-thread-count), main included',
    registers: [this.registry],
  });

  /** Trace spans not exported: the export queue was full, or the collector failed or timed out. */
  readonly traceSpansDropped = new Counter({
    name: 'infernode_trace_spans_dropped_total',
    help: 'Trace spans dropped: export queue full, or the OTLP collector refused or did not answer',
    registers: [this.registry],
  });

  /**
   * Front-end threads started to replace one that died (an exception nothing caught): a steady
   * climb is a crash loop, spaced out as the instance workers' restarts are (restart-backoff.ts).
   */
  readonly frontEndRestarts = new Counter({
    name: 'infernode_frontend_restarts_total',
    help: 'Front-end threads started to replace one that died',
    registers: [this.registry],
  });

  /** Inference requests each front-end thread handed to the main thread: the kernel's balance. */
  readonly frontEndThreadRequests = new Counter<'thread'>({
    name: 'infernode_frontend_thread_requests_total',
    help: 'Inference requests each front-end thread (1..N-1; not the main thread) handed over',
    labelNames: ['thread'],
    registers: [this.registry],
  });

  /** A per-thread gauge, rebuilt from the live threads at each scrape (gone threads drop out). */
  private threadGauge(
    name: string,
    help: string,
    value: (r: ThreadReading) => number | undefined,
  ): Gauge<'thread'> {
    const family: Gauge<'thread'> = new Gauge<'thread'>({
      name,
      help,
      labelNames: ['thread'],
      registers: [this.registry],
      collect: () => {
        family.reset();
        for (const [thread, reading] of this.threads.readings()) {
          const v = value(reading);
          if (v !== undefined) family.set({ thread }, v);
        }
      },
    });
    return family;
  }
}
