// `--trace-config`, Triton's flag: `[triton|opentelemetry,]<setting>=<value>`, repeatable, read once
// at start-up into frozen values. Global settings (mode, level, rate, count, log-frequency) set the
// starting trace settings; `opentelemetry,` settings say where and how spans are exported. This
// server implements the OpenTelemetry mode only: `mode=triton` and `triton,<setting>` (the JSON
// trace file) are refused with a sentence that says so.

import { fail } from '../errors.js';
import {
  DEFAULT_TRACE_SETTINGS,
  parseTraceUpdate,
  applyUpdate,
  type TraceSettings,
} from './trace-settings.js';

export interface OtelExportConfig {
  /** OTLP/HTTP protobuf endpoint (Triton's default: the local collector). */
  readonly url: string;
  /** `resource=<key>=<value>` attributes, service.name among them. */
  readonly resource: Readonly<Record<string, string>>;
  /** Spans waiting for export at most; more are dropped and counted (Triton: bsp_max_queue_size). */
  readonly maxQueueSize: number;
  /** Milliseconds between exports (bsp_schedule_delay). */
  readonly scheduleDelayMs: number;
  /** Spans per export request at most (bsp_max_export_batch_size). */
  readonly maxExportBatchSize: number;
}

export interface TraceConfig {
  readonly settings: TraceSettings;
  readonly export: OtelExportConfig;
}

export const DEFAULT_OTEL_EXPORT: OtelExportConfig = Object.freeze({
  url: 'http://localhost:4318/v1/traces',
  resource: Object.freeze({ 'service.name': 'infernode' }),
  maxQueueSize: 2048,
  scheduleDelayMs: 5000,
  maxExportBatchSize: 512,
});

const GLOBAL_KEYS: Readonly<Record<string, string>> = {
  level: 'trace_level',
  rate: 'trace_rate',
  count: 'trace_count',
  'log-frequency': 'log_frequency',
  log_frequency: 'log_frequency',
};

/** Parses every `--trace-config` value in order; throws an Error whose message names the flag. */
export function parseTraceConfig(values: readonly string[]): TraceConfig {
  let settings = DEFAULT_TRACE_SETTINGS;
  const levels: string[] = [];
  let exp: { -readonly [K in keyof OtelExportConfig]: OtelExportConfig[K] } = {
    ...DEFAULT_OTEL_EXPORT,
    resource: { ...DEFAULT_OTEL_EXPORT.resource },
  };
  for (const value of values) {
    const comma = value.indexOf(',');
    const eq = value.indexOf('=');
    const scoped = comma >= 0 && (eq < 0 || comma < eq);
    const scope = scoped ? value.slice(0, comma) : '';
    const rest = scoped ? value.slice(comma + 1) : value;
    const at = rest.indexOf('=');
    if (at <= 0) throw refuse(value, 'expected [opentelemetry,]<setting>=<value>');
    const key = rest.slice(0, at);
    const v = rest.slice(at + 1);
    if (scope === 'triton') {
      throw refuse(value, "Triton's JSON trace file mode is not implemented; use opentelemetry");
    }
    if (scope === 'opentelemetry') {
      exp = otelSetting(exp, key, v, value);
      continue;
    }
    if (scope !== '') throw refuse(value, `unknown trace mode '${scope}': expected opentelemetry`);
    if (key === 'mode') {
      if (v !== 'opentelemetry') {
        throw refuse(value, `expected mode=opentelemetry (the only mode implemented), got '${v}'`);
      }
      continue;
    }
    const setting = GLOBAL_KEYS[key];
    if (setting === undefined) {
      throw refuse(
        value,
        `unknown setting '${key}': expected mode, level, rate, count, log-frequency`,
      );
    }
    if (setting === 'trace_level') {
      levels.push(v);
      continue;
    }
    try {
      settings = applyUpdate(settings, parseTraceUpdate({ [setting]: v }), settings);
    } catch (e) {
      throw refuse(value, (e as Error).message);
    }
  }
  if (levels.length > 0) {
    try {
      settings = applyUpdate(settings, parseTraceUpdate({ trace_level: levels }), settings);
    } catch (e) {
      throw refuse(`level=${levels.join(',')}`, (e as Error).message);
    }
  }
  return Object.freeze({
    settings,
    export: Object.freeze({ ...exp, resource: Object.freeze(exp.resource) }),
  });
}

function otelSetting(
  exp: { -readonly [K in keyof OtelExportConfig]: OtelExportConfig[K] },
  key: string,
  v: string,
  flag: string,
): typeof exp {
  switch (key) {
    case 'url': {
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        throw refuse(flag, `expected an http(s) URL, got '${v}'`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw refuse(flag, `expected an http(s) URL, got '${v}'`);
      }
      // Triton takes host:port/path; a URL without a path gets OTLP's.
      return { ...exp, url: url.pathname === '/' ? `${url.origin}/v1/traces` : url.href };
    }
    case 'resource': {
      const at = v.indexOf('=');
      if (at <= 0) throw refuse(flag, `expected resource=<key>=<value>, got '${v}'`);
      return { ...exp, resource: { ...exp.resource, [v.slice(0, at)]: v.slice(at + 1) } };
    }
    case 'bsp_max_queue_size':
      return { ...exp, maxQueueSize: count(flag, v) };
    case 'bsp_schedule_delay':
      return { ...exp, scheduleDelayMs: count(flag, v) };
    case 'bsp_max_export_batch_size':
      return { ...exp, maxExportBatchSize: count(flag, v) };
    default:
      throw refuse(
        flag,
        `unknown opentelemetry setting '${key}': expected url, resource, bsp_max_queue_size, ` +
          'bsp_schedule_delay, bsp_max_export_batch_size',
      );
  }
}

function count(flag: string, v: string): number {
  const n = /^[0-9]{1,9}$/.test(v) ? Number(v) : 0;
  if (n < 1) throw refuse(flag, `expected a positive integer, got '${v}'`);
  return n;
}

function refuse(flag: string, why: string): Error {
  return fail('BAD_REQUEST', `--trace-config ${flag}: ${why}`);
}
