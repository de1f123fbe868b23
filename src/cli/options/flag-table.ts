// The one table of flags: every group's part, in the order --help lists them. The parser looks each
// flag up here and --help prints from here, so no flag is parsed without being listed.

import type { FlagTable } from './flag-spec.js';
import { CACHE_FLAGS } from './cache-flags.js';
import { GRPC_FLAGS } from './grpc-flags.js';
import { HTTP_FLAGS } from './http-flags.js';
import { LIFECYCLE_FLAGS } from './lifecycle-flags.js';
import { LOGGING_FLAGS } from './logging-flags.js';
import { MEMORY_FLAGS } from './memory-flags.js';
import { METRICS_FLAGS } from './metrics-flags.js';
import { RATE_LIMIT_FLAGS } from './rate-limit-flags.js';
import { RECORDING_FLAGS } from './recording-flags.js';
import { REPOSITORY_FLAGS } from './repository-flags.js';
import { TENANT_FLAGS } from './tenant-flags.js';
import { TRACING_FLAGS } from './tracing-flags.js';
import { WEBSOCKET_FLAGS } from './websocket-flags.js';
import { WORKER_FLAGS } from './worker-flags.js';

/** The flags that ask for something other than a server. */
const COMMAND_FLAGS = {
  help: { kind: 'flag', help: 'Print this help' },
  version: { kind: 'flag', help: 'Print the version' },
} as const satisfies FlagTable;

const EVERY_FLAG = {
  ...REPOSITORY_FLAGS,
  ...HTTP_FLAGS,
  ...WEBSOCKET_FLAGS,
  ...GRPC_FLAGS,
  ...METRICS_FLAGS,
  ...LIFECYCLE_FLAGS,
  ...LOGGING_FLAGS,
  ...MEMORY_FLAGS,
  ...WORKER_FLAGS,
  ...TRACING_FLAGS,
  ...CACHE_FLAGS,
  ...RECORDING_FLAGS,
  ...RATE_LIMIT_FLAGS,
  ...TENANT_FLAGS,
  ...COMMAND_FLAGS,
};

export type FlagName = keyof typeof EVERY_FLAG;

/**
 * The order of --help: the order the flags were added in, as it was when the table was one object,
 * so splitting the table into groups left --help as it was. A new flag goes where it reads best.
 */
const HELP_ORDER: readonly FlagName[] = [
  'model-repository',
  'model-store',
  'http-address',
  'http-port',
  'allow-metrics',
  'allow-gpu-metrics',
  'allow-cpu-metrics',
  'metrics-interval-ms',
  'metrics-address',
  'metrics-port',
  'backend-config',
  'strict-readiness',
  'server-name',
  'exit-on-error',
  'exit-timeout-secs',
  'drain-delay-secs',
  'log-verbose',
  'log-info',
  'log-warning',
  'log-error',
  'log-format',
  'log-file',
  'http-max-input-size',
  'http-header-timeout-secs',
  'http-body-timeout-secs',
  'http-idle-timeout-secs',
  'http-max-connections',
  'disable-auto-complete-config',
  'model-config-name',
  'strict-model-config',
  'model-control-mode',
  'repository-poll-secs',
  'load-model',
  'http-front-end',
  'http-thread-count',
  'reuse-http-port',
  'reuse-grpc-port',
  'disable-sab-tensors',
  'disable-doorbell',
  'trace-stages',
  'allow-websocket',
  'ws-max-frame-size',
  'ws-max-inflight',
  'ws-max-queued-bytes',
  'client-memory-budget',
  'allow-client-shm',
  'client-shm-max-regions',
  'client-shm-max-bytes',
  'cache-config',
  'record-requests',
  'record-requests-rate',
  'record-requests-max-bytes',
  'trace-config',
  'rate-limit',
  'rate-limit-resource',
  'tenant-header',
  'quota-file',
  'tenant-metrics-max',
  'response-cache-byte-size',
  'allow-grpc',
  'grpc-address',
  'grpc-port',
  'grpc-infer-response-compression-level',
  'grpc-keepalive-time',
  'grpc-keepalive-timeout',
  'grpc-max-input-size',
  'grpc-max-concurrent-streams',
  'grpc-restricted-protocol',
  'http-restricted-api',
  'help',
  'version',
];

/** Every flag, in --help's order. */
export const FLAGS: typeof EVERY_FLAG = inHelpOrder(EVERY_FLAG, HELP_ORDER);

/** `table` with its keys in `order`, which must name each of them once (checked at load). */
function inHelpOrder<T extends FlagTable>(table: T, order: readonly (keyof T & string)[]): T {
  const unlisted = Object.keys(table).filter((n) => !(order as readonly string[]).includes(n));
  const twice = order.filter((n, i) => order.indexOf(n) !== i);
  if (unlisted.length > 0 || twice.length > 0) {
    throw new Error(
      `HELP_ORDER must name every flag once; missing: [${unlisted.join(', ')}], twice: [${twice.join(', ')}]`,
    );
  }
  const ordered: Partial<T> = {};
  for (const n of order) ordered[n] = table[n];
  return ordered as T;
}
