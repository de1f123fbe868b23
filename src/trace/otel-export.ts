// Where finished spans go: OpenTelemetry's BatchSpanProcessor in front of the OTLP/HTTP protobuf
// exporter, built on the first sampled request (a server that never traces never opens a
// connection). Export runs on timers off the request path; a bounded count of spans may wait for it.
// A span that finds the queue full, or whose batch the collector refused or never answered, is
// dropped and counted (`onDropped`): a collector that is down or slow costs spans, never requests.

import { type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { OtelExportConfig } from './trace-config.js';
import { VERSION } from '../version.js';

/** Milliseconds an export request may take before its spans count as dropped. */
const EXPORT_TIMEOUT_MS = 10_000;

/** Milliseconds the shutdown waits for the last spans to leave. */
const SHUTDOWN_FLUSH_MS = 2000;

export class OtelExport {
  #provider: BasicTracerProvider | undefined;
  #tracer: Tracer | undefined;

  constructor(
    private readonly config: OtelExportConfig,
    private readonly onDropped: (spans: number) => void,
  ) {}

  /** The tracer spans start on; the provider and exporter are built on the first call. */
  tracer(): Tracer {
    if (this.#tracer !== undefined) return this.#tracer;
    const c = this.config;
    const exporter = new CountingExporter(
      new OTLPTraceExporter({ url: c.url, timeoutMillis: EXPORT_TIMEOUT_MS }),
      this.onDropped,
    );
    const processor = new BoundedProcessor(
      new BatchSpanProcessor(exporter, {
        maxQueueSize: c.maxQueueSize,
        maxExportBatchSize: Math.min(c.maxExportBatchSize, c.maxQueueSize),
        scheduledDelayMillis: c.scheduleDelayMs,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS + 1000,
      }),
      exporter,
      c.maxQueueSize,
      this.onDropped,
    );
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ ...c.resource }),
      // The trace settings choose which requests are traced; every span started is kept.
      sampler: new AlwaysOnSampler(),
      spanProcessors: [processor],
    });
    this.#tracer = this.#provider.getTracer('infernode', VERSION);
    return this.#tracer;
  }

  /** Exports what is queued (bounded by the exporter's timeout) and stops; for shutdown. */
  async shutdown(): Promise<void> {
    const provider = this.#provider;
    if (provider === undefined) return;
    // A collector that does not answer must not hold the exit for the export timeout.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
    });
    await Promise.race([provider.shutdown().catch(() => undefined), bound]);
    clearTimeout(timer);
  }
}

/** Counts the spans of batches that failed (refused, unreachable, timed out) as dropped. */
class CountingExporter implements SpanExporter {
  /** Spans handed to the processor and not yet through an export. */
  pending = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly onDropped: (spans: number) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.pending -= spans.length;
      if (result.code !== ExportResultCode.SUCCESS) this.onDropped(spans.length);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Keeps at most `max` spans between the end of a span and the end of its export, counting the ones
 * turned away. The BatchSpanProcessor drops on a full queue too, but silently; bounding here, on
 * the same count, means it never has to and every drop is counted.
 */
class BoundedProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly exporter: CountingExporter,
    private readonly max: number,
    private readonly onDropped: (spans: number) => void,
  ) {}

  onStart(...args: Parameters<SpanProcessor['onStart']>): void {
    this.inner.onStart(...args);
  }

  onEnd(span: ReadableSpan): void {
    if (this.exporter.pending >= this.max) {
      this.onDropped(1);
      return;
    }
    this.exporter.pending++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
