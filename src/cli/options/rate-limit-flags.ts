// The rate limiter flags: Triton's --rate-limit and the resources instances wait for.

import type { FlagTable } from './flag-spec.js';

export const RATE_LIMIT_FLAGS = {
  'rate-limit': {
    kind: 'string',
    help: "off | execution_count: Triton's rate limiter; with execution_count an instance runs only when the resources its instance group's rate_limiter asks for are free, and waiting instances run by priority-weighted execution count (off)",
  },
  'rate-limit-resource': {
    kind: 'string',
    repeat: true,
    help: '<name>:<count>[:<device>]: copies of a rate limiter resource, on one device or (no device) on each; once any is given, a resource not given has none (repeatable; the largest count any instance asks for)',
  },
} as const satisfies FlagTable;
