// The server's options: Triton's flag names where they apply, parsed once from argv, validated and
// frozen. Nothing downstream reads argv or process.env. Each group of flags (options/*-flags.ts)
// owns its part of the one flag table and turns its values into its part of the options; this
// file reads argv against the table and puts the parts together.

import { fail } from '../errors.js';
import { cacheOptions } from './options/cache-flags.js';
import { FLAGS } from './options/flag-table.js';
import { readFlags } from './options/flag-values.js';
import { grpcOptions } from './options/grpc-flags.js';
import { httpOptions } from './options/http-flags.js';
import { lifecycleOptions } from './options/lifecycle-flags.js';
import { loggingOptions } from './options/logging-flags.js';
import { memoryOptions } from './options/memory-flags.js';
import { metricsOptions } from './options/metrics-flags.js';
import type { ServerOptions } from './options/options-type.js';
import { rateLimitOptions } from './options/rate-limit-flags.js';
import { recordingOptions } from './options/recording-flags.js';
import { repositoryOptions } from './options/repository-flags.js';
import { tenantOptions } from './options/tenant-flags.js';
import { tracingOptions } from './options/tracing-flags.js';
import { webSocketOptions } from './options/websocket-flags.js';
import { workerOptions } from './options/worker-flags.js';

export { DEFAULT_OPTIONS, type ServerOptions } from './options/options-type.js';
export { FLAGS } from './options/flag-table.js';
export { helpText } from './options/help-text.js';

export interface ParsedArgs {
  readonly options: ServerOptions;
  readonly help: boolean;
  readonly version: boolean;
  readonly warnings: readonly string[];
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const read = readFlags(argv, FLAGS);
  // Each group refuses its own bad flags; with several, the first group's refusal is the one seen.
  const http = httpOptions(read);
  const options: ServerOptions = Object.freeze({
    ...repositoryOptions(read),
    ...http,
    ...metricsOptions(read, http.httpAddress),
    ...lifecycleOptions(read),
    ...loggingOptions(read),
    ...webSocketOptions(read),
    ...memoryOptions(read),
    ...grpcOptions(read),
    ...workerOptions(read),
    ...tracingOptions(read),
    ...cacheOptions(read),
    ...recordingOptions(read),
    ...rateLimitOptions(read),
    ...tenantOptions(read),
  });
  const help = read.has('help');
  const version = read.has('version');
  if (options.modelRepositories.length === 0 && !help && !version) {
    throw fail('BAD_REQUEST', '--model-repository is required');
  }
  return { options, help, version, warnings: read.warnings };
}
