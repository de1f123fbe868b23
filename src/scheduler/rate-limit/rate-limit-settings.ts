// The rate limiter's server settings, Triton's flags: `--rate-limit=off|execution_count` and
// `--rate-limit-resource=<name>:<count>[:<device>]` (repeatable), read once at start, with Triton's
// wording for a bad value (tritonserver's command_line_parser).

import { fail } from '../../errors.js';

export type RateLimitMode = 'off' | 'execution_count';

/** One `--rate-limit-resource`: `device` absent means the count applies on every device. */
export interface ExplicitResource {
  readonly name: string;
  readonly count: number;
  readonly device?: number;
}

export interface RateLimitSettings {
  readonly mode: RateLimitMode;
  readonly resources: readonly ExplicitResource[];
}

export const RATE_LIMIT_OFF: RateLimitSettings = Object.freeze({ mode: 'off', resources: [] });

/** The flags' values as given (undefined mode: the default, off). Throws BAD_REQUEST. */
export function parseRateLimitSettings(
  mode: string | undefined,
  resources: readonly string[],
): RateLimitSettings {
  const m = (mode ?? 'off').toLowerCase();
  if (m !== 'off' && m !== 'execution_count') {
    throw fail(
      'BAD_REQUEST',
      `invalid argument for --rate-limit: expected off or execution_count, got '${(mode ?? '').slice(0, 64)}'`,
    );
  }
  return Object.freeze({
    mode: m,
    resources: Object.freeze(resources.map((r) => Object.freeze(parseResource(r)))),
  });
}

function parseResource(arg: string): ExplicitResource {
  const refused = () =>
    fail(
      'BAD_REQUEST',
      `--rate-limit-resource option format is '<resource_name>:<count>:<device>' or ` +
        `'<resource_name>:<count>'. Got ${arg.slice(0, 200)}`,
    );
  const parts = arg.split(':');
  if (parts.length < 2 || parts.length > 3) throw refused();
  const [name = '', count = '', device] = parts;
  if (name === '' || !/^[0-9]+$/.test(count) || !Number.isSafeInteger(Number(count))) {
    throw refused();
  }
  if (device === undefined) return { name, count: Number(count) };
  if (!/^[0-9]+$/.test(device) || !Number.isSafeInteger(Number(device))) throw refused();
  return { name, count: Number(count), device: Number(device) };
}
