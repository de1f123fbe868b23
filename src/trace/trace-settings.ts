// Triton's trace settings (the trace extension): the global values, each model's overrides, and the
// check of an update from `POST /v2[/models/{m}]/trace/setting` or gRPC `TraceSetting`. Values
// travel as Triton spells them (strings, `trace_level` an array of strings); an update is checked
// whole before anything changes, so a refused update changes nothing. Errors name what was expected
// and what arrived.

import { fail } from '../errors.js';

/** The trace mode this server implements: Triton's OpenTelemetry mode. */
export const TRACE_MODE = 'opentelemetry';

/** Settings one scope (the server, or a model) traces by; every field is resolved. */
export interface TraceSettings {
  /** `trace_level`: TIMESTAMPS traces, OFF does not. TENSORS is refused (not implemented). */
  readonly level: 'OFF' | 'TIMESTAMPS';
  /** `trace_rate`: every rate-th request of the scope is traced (>= 1). */
  readonly rate: number;
  /** `trace_count`: traces left to take; -1 is unlimited. */
  readonly count: number;
  /** `log_frequency`: kept and reported for Triton's clients; OpenTelemetry export is batched. */
  readonly logFrequency: number;
}

export type SettingName = 'trace_level' | 'trace_rate' | 'trace_count' | 'log_frequency';

/** One checked update: a value per setting named, or null to clear it (a model: follow global). */
export type TraceUpdate = Partial<{
  -readonly [K in keyof TraceSettings]: TraceSettings[K] | null;
}>;

/** The settings as Triton's JSON answers them. */
export type TraceSettingsJson = Readonly<Record<string, string | readonly string[]>>;

export const DEFAULT_TRACE_SETTINGS: TraceSettings = Object.freeze({
  level: 'OFF',
  rate: 1000,
  count: -1,
  logFrequency: 0,
});

export function settingsJson(s: TraceSettings): TraceSettingsJson {
  return {
    trace_level: [s.level],
    trace_rate: String(s.rate),
    trace_count: String(s.count),
    log_frequency: String(s.logFrequency),
    trace_mode: TRACE_MODE,
  };
}

/**
 * Checks the JSON body of a settings POST: a map of setting → string, array of strings, or null.
 * gRPC's `SettingValue` (a list of strings, empty to clear) is passed as the array form.
 */
export function parseTraceUpdate(body: unknown): TraceUpdate {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw bad(`trace settings must be a JSON object, got ${describe(body)}`);
  }
  const update: TraceUpdate = {};
  for (const [key, raw] of Object.entries(body as Record<string, unknown>)) {
    const value = single(key, raw);
    switch (key) {
      case 'trace_level':
        update.level = value === null ? null : level(raw);
        break;
      case 'trace_rate':
        update.rate = value === null ? null : integer(key, value, 1, 'a positive integer');
        break;
      case 'trace_count':
        update.count = value === null ? null : integer(key, value, -1, 'an integer >= -1');
        break;
      case 'log_frequency':
        update.logFrequency = value === null ? null : integer(key, value, 0, 'an integer >= 0');
        break;
      case 'trace_mode':
        if (value !== null && value !== TRACE_MODE) {
          throw bad(
            `trace_mode cannot be changed: expected "${TRACE_MODE}" (the only mode this ` +
              `server implements), got ${describe(value)}`,
          );
        }
        break;
      case 'trace_file':
        throw bad(
          'trace_file cannot be set over the network: traces are exported over OTLP ' +
            '(--trace-config opentelemetry,url=<collector>), not written to a file',
        );
      default:
        throw bad(
          `unknown trace setting '${key.slice(0, 64)}': expected one of trace_level, ` +
            'trace_rate, trace_count, log_frequency, trace_mode',
        );
    }
  }
  return update;
}

/** Applies an update to resolved settings; null restores `fallback`'s value. */
export function applyUpdate(
  to: TraceSettings,
  update: TraceUpdate,
  fallback: TraceSettings,
): TraceSettings {
  const pick = <K extends keyof TraceSettings>(k: K): TraceSettings[K] => {
    const v = update[k];
    return v === undefined ? to[k] : v === null ? fallback[k] : (v as TraceSettings[K]);
  };
  return Object.freeze({
    level: pick('level'),
    rate: pick('rate'),
    count: pick('count'),
    logFrequency: pick('logFrequency'),
  });
}

/** `trace_level`: one value or an array; OFF and TIMESTAMPS (OFF with TIMESTAMPS is TIMESTAMPS). */
function level(raw: unknown): TraceSettings['level'] {
  const values = Array.isArray(raw) ? raw : [raw];
  let on = false;
  for (const v of values) {
    if (v === 'TIMESTAMPS') on = true;
    else if (v === 'TENSORS') {
      throw bad('trace_level TENSORS is not supported: expected OFF or TIMESTAMPS, got "TENSORS"');
    } else if (v !== 'OFF') {
      throw bad(`trace_level: expected OFF or TIMESTAMPS, got ${describe(v)}`);
    }
  }
  return on ? 'TIMESTAMPS' : 'OFF';
}

/** The one value of a setting other than trace_level (a one-element array is taken too). */
function single(key: string, raw: unknown): string | null {
  if (raw === null) return null;
  if (Array.isArray(raw)) {
    if (raw.length === 0) return null; // gRPC: no value clears the setting
    if (key === 'trace_level') return '';
    if (raw.length !== 1) {
      throw bad(`${key}: expected a single value, got an array of ${raw.length}`);
    }
    return single(key, raw[0]);
  }
  if (typeof raw !== 'string') {
    throw bad(`${key}: expected a string value, got ${describe(raw)}`);
  }
  return raw;
}

function integer(key: string, value: string, min: number, expected: string): number {
  const n = /^-?[0-9]{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw bad(`${key}: expected ${expected}, got ${describe(value)}`);
  }
  return n;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 64));
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `the ${typeof v} ${String(v).slice(0, 32)}`;
}

function bad(message: string): Error {
  return fail('BAD_REQUEST', message);
}
