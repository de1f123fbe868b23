// The rate limiter flags: Triton's --rate-limit and the resources instances wait for.

import { parseRateLimitSettings } from '../../scheduler/rate-limit/rate-limit-settings.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import type { ServerOptions } from './options-type.js';

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

export function rateLimitOptions(
  read: FlagReader<keyof typeof RATE_LIMIT_FLAGS>,
): Pick<ServerOptions, 'rateLimit'> {
  return {
    rateLimit: parseRateLimitSettings(read.last('rate-limit'), read.all('rate-limit-resource')),
  };
}
