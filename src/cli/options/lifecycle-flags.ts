// The lifecycle flags: what the server reports about itself, and how it starts and stops.

import type { FlagTable } from './flag-spec.js';

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
