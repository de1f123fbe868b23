// The tracing flags: Triton's --trace-config, and the stage timings served for debugging.

import type { FlagTable } from './flag-spec.js';

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
