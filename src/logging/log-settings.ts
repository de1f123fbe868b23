// Triton's log settings (the logging extension, `--log-*` flags): the record, its defaults, and
// the decoding of an update as the HTTP body and the gRPC `LogSettings` map carry it. An update is
// checked whole before anything changes: a request with one bad value changes nothing (Triton
// applies the settings before the bad one; a half-applied update is never what a client meant).

import { fail, type InferenceServerError } from '../errors.js';
import { own } from '../protocol/parameters.js';

/**
 * `json`: one pino JSON object per line (infernode's default). `default` and `ISO8601`: Triton's
 * line formats, for a person at a terminal (log-line.ts).
 */
export const LOG_FORMATS = Object.freeze(['json', 'default', 'ISO8601'] as const);
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogFormat(s: string): s is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(s);
}

/** The settings, with Triton's field names (GET /v2/logging answers exactly this object). */
export interface LogSettings {
  /** Where records go: '' for stdout. Set by --log-file only, never over the network. */
  readonly log_file: string;
  readonly log_info: boolean;
  readonly log_warning: boolean;
  readonly log_error: boolean;
  /** >= 1 adds debug records (and ONNX Runtime's warnings); >= 2 trace records. */
  readonly log_verbose_level: number;
  readonly log_format: LogFormat;
}

/** The settings an update may change: every field but `log_file`. */
export type LogSettingsUpdate = Partial<Omit<LogSettings, 'log_file'>>;

/**
 * The logging extension as a transport sees it: reads (`undefined`) or updates the settings and
 * answers the settings in force. The main thread answers it from its LogControl; a front-end
 * thread's RemoteDataPlane forwards it to main.
 */
export interface LogSettingsPort {
  logSettings(update: LogSettingsUpdate | undefined): LogSettings | Promise<LogSettings>;
}

export const DEFAULT_LOG_SETTINGS: LogSettings = Object.freeze({
  log_file: '',
  log_info: true,
  log_warning: true,
  log_error: true,
  log_verbose_level: 0,
  log_format: 'json',
});

/** The largest verbose level accepted: Triton keeps it in an int32. */
const MAX_VERBOSE = 2 ** 31 - 1;

const BOOLS = ['log_info', 'log_warning', 'log_error'] as const;

/** Triton's refusal (http_server.cc, grpc_server.cc): the file is the operator's choice alone. */
export function logFileRefused(): InferenceServerError {
  return fail('UNSUPPORTED', 'log file location can not be updated through network protocol');
}

/**
 * A `POST /v2/logging` body, parsed. As in Triton, a `null` value leaves its setting unchanged,
 * and names it does not know are ignored; `log_file` with any value but null is refused.
 */
export function decodeLogSettingsJson(body: unknown): LogSettingsUpdate {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fail('BAD_REQUEST', `log settings: expected a JSON object, got ${describe(body)}`);
  }
  const fields = body as Record<string, unknown>;
  if (own(fields, 'log_file') !== undefined && own(fields, 'log_file') !== null)
    throw logFileRefused();
  const update: { -readonly [K in keyof LogSettingsUpdate]: LogSettingsUpdate[K] } = {};
  for (const name of BOOLS) {
    const v = own(fields, name);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'boolean') throw expected(name, 'a boolean', describe(v));
    update[name] = v;
  }
  const level = own(fields, 'log_verbose_level');
  if (level !== undefined && level !== null) update.log_verbose_level = verboseLevel(level);
  const format = own(fields, 'log_format');
  if (format !== undefined && format !== null) update.log_format = logFormat(format);
  return update;
}

/** One value of gRPC's `map<string, SettingValue>`, as proto-loader gives it (`oneofs: true`). */
export interface GrpcSettingValue {
  readonly parameter_choice?: 'bool_param' | 'uint32_param' | 'string_param';
  readonly bool_param?: boolean;
  readonly uint32_param?: number;
  readonly string_param?: string;
}

/**
 * A gRPC `LogSettingsRequest.settings` map, parsed. Each setting must come in its own member of
 * the oneof, as Triton's grpc_server.cc demands ("expect boolean for 'log_info'").
 */
export function decodeLogSettingsGrpc(
  settings: Readonly<Record<string, GrpcSettingValue>>,
): LogSettingsUpdate {
  if (settings['log_file'] !== undefined) throw logFileRefused();
  const update: { -readonly [K in keyof LogSettingsUpdate]: LogSettingsUpdate[K] } = {};
  for (const name of BOOLS) {
    const v = settings[name];
    if (v === undefined) continue;
    if (v.parameter_choice !== 'bool_param') throw grpcExpected(name, 'boolean', v);
    update[name] = v.bool_param === true;
  }
  const level = settings['log_verbose_level'];
  if (level !== undefined) {
    if (level.parameter_choice !== 'uint32_param') {
      throw grpcExpected('log_verbose_level', 'uint32', level);
    }
    update.log_verbose_level = verboseLevel(level.uint32_param ?? 0);
  }
  const format = settings['log_format'];
  if (format !== undefined) {
    if (format.parameter_choice !== 'string_param') {
      throw grpcExpected('log_format', 'string', format);
    }
    update.log_format = logFormat(format.string_param ?? '');
  }
  return update;
}

/** The settings as gRPC's `LogSettingsResponse.settings` map. */
export function logSettingsGrpc(s: LogSettings): Record<string, GrpcSettingValue> {
  return {
    log_file: { string_param: s.log_file },
    log_info: { bool_param: s.log_info },
    log_warning: { bool_param: s.log_warning },
    log_error: { bool_param: s.log_error },
    log_verbose_level: { uint32_param: s.log_verbose_level },
    log_format: { string_param: s.log_format },
  };
}

export function applyLogSettings(s: LogSettings, update: LogSettingsUpdate): LogSettings {
  return Object.freeze({ ...s, ...update });
}

function verboseLevel(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_VERBOSE) {
    throw expected('log_verbose_level', `an integer from 0 to ${MAX_VERBOSE}`, describe(v));
  }
  return v;
}

function logFormat(v: unknown): LogFormat {
  if (typeof v === 'string' && isLogFormat(v)) return v;
  // Triton's words ("invalid argument for --log_format, got: ..."), with what it takes.
  throw fail(
    'BAD_REQUEST',
    `invalid argument for log_format: expected one of ${LOG_FORMATS.map((f) => `"${f}"`).join(', ')}, got ${describe(v)}`,
  );
}

function expected(name: string, what: string, got: string): InferenceServerError {
  return fail('BAD_REQUEST', `invalid argument for ${name}: expected ${what}, got ${got}`);
}

function grpcExpected(name: string, what: string, v: GrpcSettingValue): InferenceServerError {
  const got = v.parameter_choice ?? 'no value';
  return fail('BAD_REQUEST', `expect ${what} for '${name}', got ${got}`);
}

/** A received value in an error message: its JSON, cut short. */
function describe(v: unknown): string {
  const text = v === undefined ? 'nothing' : JSON.stringify(v);
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

/** The `--log-*` flags as ServerOptions carries them. */
export interface LogFlags {
  readonly logVerbose: number;
  readonly logInfo: boolean;
  readonly logWarning: boolean;
  readonly logError: boolean;
  readonly logFormat: LogFormat;
  readonly logFile: string;
}

/** The settings the server starts with, from its flags. */
export function logSettingsOf(flags: LogFlags): LogSettings {
  return Object.freeze({
    log_file: flags.logFile,
    log_info: flags.logInfo,
    log_warning: flags.logWarning,
    log_error: flags.logError,
    log_verbose_level: flags.logVerbose,
    log_format: flags.logFormat,
  });
}
