// The tracing flags: Triton's --trace-config, and the stage timings served for debugging.

import { parseTraceConfig } from '../../trace/trace-config.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const TRACING_FLAGS = {
  'trace-stages': {
    kind: 'flag',
    help: 'Time HTTP inference requests stage by stage; served at GET /v2/debug/stages',
  },
  'trace-config': {
    kind: 'string',
    repeat: true,
    help: "[opentelemetry,]<setting>=<value>, as Triton's flag: mode=opentelemetry, level=TIMESTAMPS|OFF, rate=<n>, count=<n>, log-frequency=<n>; opentelemetry,url=<OTLP/HTTP endpoint>, opentelemetry,resource=<k>=<v>, opentelemetry,bsp_max_queue_size|bsp_schedule_delay|bsp_max_export_batch_size=<n> (repeatable; level=OFF)",
  },
} as const satisfies FlagTable;

type TracingOptions = Pick<ServerOptions, 'traceStages' | 'traceConfig'>;

export function tracingOptions(read: FlagReader<keyof typeof TRACING_FLAGS>): TracingOptions {
  return {
    traceStages: read.bool('trace-stages', DEFAULT_OPTIONS.traceStages),
    traceConfig: parseTraceConfig(read.all('trace-config')),
  };
}
