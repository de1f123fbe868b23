// The lifecycle flags: what the server reports about itself, and how it starts and stops.

import { fail } from '../../errors.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const LIFECYCLE_FLAGS = {
  'strict-readiness': {
    kind: 'bool',
    help: '/v2/health/ready only when every model is ready (true)',
  },
  'server-name': {
    kind: 'string',
    help: 'The name server metadata (GET /v2) reports; "triton" for clients that check it (infernode)',
  },
  'exit-on-error': { kind: 'bool', help: 'Exit when a model fails to load at start-up (true)' },
  'exit-timeout-secs': {
    kind: 'uint',
    help: 'Seconds the whole shutdown may take (drain delay included); then queued requests get 503 and the exit status is 1, and 5 s later (at once during start-up loads) the process ends by its signal (30)',
  },
  'drain-delay-secs': {
    kind: 'uint',
    help: 'Seconds the listeners keep accepting after SIGTERM makes readiness fail (0)',
  },
} as const satisfies FlagTable;

type LifecycleOptions = Pick<
  ServerOptions,
  'strictReadiness' | 'serverName' | 'exitOnError' | 'exitTimeoutSecs' | 'drainDelaySecs'
>;

export function lifecycleOptions(read: FlagReader<keyof typeof LIFECYCLE_FLAGS>): LifecycleOptions {
  return {
    strictReadiness: read.bool('strict-readiness', DEFAULT_OPTIONS.strictReadiness),
    serverName: serverName(read.last('server-name') ?? DEFAULT_OPTIONS.serverName),
    exitOnError: read.bool('exit-on-error', DEFAULT_OPTIONS.exitOnError),
    exitTimeoutSecs: read.uint('exit-timeout-secs', DEFAULT_OPTIONS.exitTimeoutSecs),
    drainDelaySecs: read.uint('drain-delay-secs', DEFAULT_OPTIONS.drainDelaySecs, 86_400),
  };
}

function serverName(v: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(v)) {
    throw fail(
      'BAD_REQUEST',
      `--server-name: expected 1 to 64 letters, digits, '.', '_' or '-', got '${v.slice(0, 64)}'`,
    );
  }
  return v;
}
