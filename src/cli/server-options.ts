// The server's options: Triton's flag names where they apply, parsed once from argv, validated and
// frozen. Nothing downstream reads argv or process.env. The option type and its defaults, the flag
// table and --help live in options/.

import { fail } from '../errors.js';
import type { CompressionLevel } from '../grpc/grpc-server.js';
import { parseRestrictions } from '../grpc/restricted-protocol.js';
import { parseApiRestrictions } from '../http/restricted-apis.js';
import { parseFrontEndChoice } from '../http/select-front-end.js';
import { isValidModelName } from '../repository/model-name.js';
import { isLogFormat, LOG_FORMATS, type LogFormat } from '../logging/log-settings.js';
import { MODEL_CONTROL_MODES, type ModelControlMode } from '../repository/model-manager.js';
import { parseCacheConfig } from '../cache/cache-config.js';
import { parseRateLimitSettings } from '../scheduler/rate-limit/rate-limit-settings.js';
import { parseTraceConfig } from '../trace/trace-config.js';
import { FLAGS, type FlagName } from './options/flag-table.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options/options-type.js';

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
  const values = new Map<FlagName, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--'))
      throw fail('BAD_REQUEST', `unexpected argument '${arg}': flags start with --`);
    const eq = arg.indexOf('=');
    const name = (eq === -1 ? arg.slice(2) : arg.slice(2, eq)) as FlagName;
    const spec = FLAGS[name];
    if (spec === undefined) throw fail('BAD_REQUEST', `unknown flag --${name}; see --help`);
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (spec.kind === 'flag' || (spec.kind === 'bool' && !isBool(argv[i + 1]))) value = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw fail('BAD_REQUEST', `flag --${name} needs a value`);
      value = next;
      i++;
    }
    const list = values.get(name) ?? [];
    list.push(value);
    values.set(name, list);
  }

  const warnings: string[] = [];
  const last = (n: FlagName): string | undefined => values.get(n)?.at(-1);
  const bool = (n: FlagName, d: boolean): boolean => {
    const v = last(n);
    if (v === undefined) return d;
    if (!isBool(v)) throw fail('BAD_REQUEST', `--${n}: expected true or false, got '${v}'`);
    return ['true', '1', 'yes', 'on'].includes(v.toLowerCase());
  };
  const uint = (n: FlagName, d: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = last(n);
    if (v === undefined) return d;
    const x = Number(v);
    if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(x) || x > max) {
      throw fail('BAD_REQUEST', `--${n}: expected an integer between 0 and ${max}, got '${v}'`);
    }
    return x;
  };

  /**
   * As `uint`, refusing 0 and negative integers in Triton's words (Triton reads the flag as a
   * signed integer, so both reach its check; 0 would refuse every request body).
   */
  const aboveZero = (n: FlagName, d: number): number => {
    const refused = fail('BAD_REQUEST', `Error: --${n} must be greater than 0.`);
    if (/^-[0-9]+$/.test(last(n)?.trim() ?? '')) throw refused;
    const x = uint(n, d);
    if (x === 0) throw refused;
    return x;
  };

  const mode = last('model-control-mode') ?? 'none';
  if (!(MODEL_CONTROL_MODES as readonly string[]).includes(mode)) {
    throw fail(
      'BAD_REQUEST',
      `--model-control-mode: expected none, explicit or poll, got '${mode.slice(0, 64)}'`,
    );
  }
  const loadModels = values.get('load-model') ?? [];
  for (const name of loadModels) {
    if (name !== '*' && !isValidModelName(name)) {
      throw fail(
        'BAD_REQUEST',
        `--load-model: '${name.slice(0, 200)}' is not a model name ([A-Za-z0-9_.-], 1-128 characters)`,
      );
    }
  }
  if (loadModels.includes('*') && loadModels.length > 1) {
    throw fail('BAD_REQUEST', '--load-model=* loads every model and must be the only --load-model');
  }
  if (loadModels.length > 0 && mode !== 'explicit') {
    warnings.push(
      `--load-model is ignored with --model-control-mode=${mode}: every model loads at start`,
    );
  }
  const allowMetrics = bool('allow-metrics', true);
  for (const n of ['allow-gpu-metrics', 'metrics-interval-ms'] as const) {
    if (values.has(n) && !allowMetrics) {
      warnings.push(`--${n} is ignored with --allow-metrics=false`);
    }
  }
  if (values.has('allow-cpu-metrics') && !allowMetrics) {
    warnings.push('--allow-cpu-metrics is ignored with --allow-metrics=false');
  }
  if (values.has('repository-poll-secs') && mode !== 'poll') {
    warnings.push(`--repository-poll-secs is ignored with --model-control-mode=${mode}`);
  }
  let disableAutoComplete = bool('disable-auto-complete-config', false);
  if (values.has('strict-model-config')) {
    warnings.push('--strict-model-config is deprecated; use --disable-auto-complete-config');
    if (bool('strict-model-config', false)) disableAutoComplete = true;
  }
  if (values.has('response-cache-byte-size')) {
    warnings.push(
      '--response-cache-byte-size is deprecated; use --cache-config local,size=<bytes>',
    );
  }
  const cacheConfig = parseCacheConfig(
    values.get('cache-config') ?? [],
    values.has('response-cache-byte-size')
      ? String(uint('response-cache-byte-size', 0))
      : undefined,
  );
  const frontEnd = parseFrontEndChoice(last('http-front-end') ?? 'auto');
  const httpAddress = last('http-address') ?? DEFAULT_OPTIONS.httpAddress;
  const options: ServerOptions = Object.freeze({
    modelRepositories: Object.freeze([
      ...(values.get('model-repository') ?? []),
      ...(values.get('model-store') ?? []),
    ]),
    modelControlMode: mode as ModelControlMode,
    loadModels: Object.freeze([...loadModels]),
    repositoryPollSecs: positive(
      'repository-poll-secs',
      uint('repository-poll-secs', DEFAULT_OPTIONS.repositoryPollSecs, 86_400),
    ),
    httpAddress,
    httpPort: uint('http-port', DEFAULT_OPTIONS.httpPort, 65535),
    allowMetrics,
    allowGpuMetrics: bool('allow-gpu-metrics', DEFAULT_OPTIONS.allowGpuMetrics),
    allowCpuMetrics: bool('allow-cpu-metrics', DEFAULT_OPTIONS.allowCpuMetrics),
    // A day at most: a slip of the keyboard should not stop the readings for good.
    metricsIntervalMs: positive(
      'metrics-interval-ms',
      uint('metrics-interval-ms', DEFAULT_OPTIONS.metricsIntervalMs, 86_400_000),
    ),
    metricsAddress: last('metrics-address') ?? httpAddress,
    metricsPort: uint('metrics-port', DEFAULT_OPTIONS.metricsPort, 65535),
    backendConfig: Object.freeze([...(values.get('backend-config') ?? [])]),
    strictReadiness: bool('strict-readiness', true),
    serverName: serverName(last('server-name') ?? DEFAULT_OPTIONS.serverName),
    exitOnError: bool('exit-on-error', true),
    exitTimeoutSecs: uint('exit-timeout-secs', DEFAULT_OPTIONS.exitTimeoutSecs),
    drainDelaySecs: uint('drain-delay-secs', DEFAULT_OPTIONS.drainDelaySecs, 86_400),
    logVerbose: uint('log-verbose', 0),
    logInfo: bool('log-info', DEFAULT_OPTIONS.logInfo),
    logWarning: bool('log-warning', DEFAULT_OPTIONS.logWarning),
    logError: bool('log-error', DEFAULT_OPTIONS.logError),
    logFormat: logFormat(last('log-format') ?? DEFAULT_OPTIONS.logFormat),
    logFile: last('log-file') ?? DEFAULT_OPTIONS.logFile,
    httpMaxInputSize: aboveZero('http-max-input-size', DEFAULT_OPTIONS.httpMaxInputSize),
    httpHeaderTimeoutSecs: positive(
      'http-header-timeout-secs',
      uint('http-header-timeout-secs', DEFAULT_OPTIONS.httpHeaderTimeoutSecs, 3600),
    ),
    httpBodyTimeoutSecs: positive(
      'http-body-timeout-secs',
      uint('http-body-timeout-secs', DEFAULT_OPTIONS.httpBodyTimeoutSecs, 3600),
    ),
    httpIdleTimeoutSecs: positive(
      'http-idle-timeout-secs',
      uint('http-idle-timeout-secs', DEFAULT_OPTIONS.httpIdleTimeoutSecs, 3600),
    ),
    httpMaxConnections: uint('http-max-connections', DEFAULT_OPTIONS.httpMaxConnections),
    disableAutoCompleteConfig: disableAutoComplete,
    modelConfigName: modelConfigName(last('model-config-name') ?? ''),
    httpFrontEnd: frontEnd,
    httpThreadCount: positive(
      'http-thread-count',
      uint('http-thread-count', DEFAULT_OPTIONS.httpThreadCount, 256),
    ),
    reuseHttpPort: bool('reuse-http-port', false),
    reuseGrpcPort: bool('reuse-grpc-port', false),
    disableSabTensors: bool('disable-sab-tensors', false),
    disableDoorbell: bool('disable-doorbell', false),
    traceStages: bool('trace-stages', false),
    allowWebsocket: bool('allow-websocket', true),
    // uWS takes the frame cap as a 32-bit length.
    wsMaxFrameSize: positive(
      'ws-max-frame-size',
      uint('ws-max-frame-size', DEFAULT_OPTIONS.wsMaxFrameSize, 0xffffffff),
    ),
    wsMaxInflight: positive(
      'ws-max-inflight',
      uint('ws-max-inflight', DEFAULT_OPTIONS.wsMaxInflight),
    ),
    wsMaxQueuedBytes: positive(
      'ws-max-queued-bytes',
      uint('ws-max-queued-bytes', DEFAULT_OPTIONS.wsMaxQueuedBytes),
    ),
    clientMemoryBudget: uint('client-memory-budget', DEFAULT_OPTIONS.clientMemoryBudget),
    allowGrpc: bool('allow-grpc', true),
    grpcAddress: last('grpc-address') ?? DEFAULT_OPTIONS.grpcAddress,
    grpcPort: uint('grpc-port', DEFAULT_OPTIONS.grpcPort, 65535),
    grpcInferResponseCompressionLevel: compressionLevel(
      last('grpc-infer-response-compression-level') ?? 'none',
    ),
    grpcKeepaliveTimeMs: uint('grpc-keepalive-time', DEFAULT_OPTIONS.grpcKeepaliveTimeMs),
    grpcKeepaliveTimeoutMs: uint('grpc-keepalive-timeout', DEFAULT_OPTIONS.grpcKeepaliveTimeoutMs),
    // grpc-js takes the limit as a signed 32-bit length.
    grpcMaxInputSize: positive(
      'grpc-max-input-size',
      uint('grpc-max-input-size', DEFAULT_OPTIONS.grpcMaxInputSize, 0x7fffffff),
    ),
    grpcMaxConcurrentStreams: positive(
      'grpc-max-concurrent-streams',
      uint('grpc-max-concurrent-streams', DEFAULT_OPTIONS.grpcMaxConcurrentStreams, 0xffffffff),
    ),
    grpcRestrictedProtocols: parseRestrictions(values.get('grpc-restricted-protocol') ?? []),
    httpRestrictedApis: parseApiRestrictions(values.get('http-restricted-api') ?? []),
    allowClientShm: bool('allow-client-shm', DEFAULT_OPTIONS.allowClientShm),
    clientShmMaxRegions: uint('client-shm-max-regions', DEFAULT_OPTIONS.clientShmMaxRegions),
    clientShmMaxBytes: uint('client-shm-max-bytes', DEFAULT_OPTIONS.clientShmMaxBytes),
    cacheConfig,
    recordRequests: last('record-requests'),
    recordRequestsRate: recordRate(last('record-requests-rate')),
    recordRequestsMaxBytes: uint(
      'record-requests-max-bytes',
      DEFAULT_OPTIONS.recordRequestsMaxBytes,
    ),
    traceConfig: parseTraceConfig(values.get('trace-config') ?? []),
    rateLimit: parseRateLimitSettings(last('rate-limit'), values.get('rate-limit-resource') ?? []),
    tenantHeader: tenantHeader(last('tenant-header'), last('quota-file')),
    quotaFile: last('quota-file'),
    tenantMetricsMax: uint('tenant-metrics-max', DEFAULT_OPTIONS.tenantMetricsMax, 10_000),
  });
  if (options.modelRepositories.length === 0 && !values.has('help') && !values.has('version')) {
    throw fail('BAD_REQUEST', '--model-repository is required');
  }
  return { options, help: values.has('help'), version: values.has('version'), warnings };
}

/** --tenant-header: an HTTP header name, lower-cased; --quota-file needs it. */
function tenantHeader(name: string | undefined, quotaFile: string | undefined): string | undefined {
  if (name === undefined) {
    if (quotaFile !== undefined) throw fail('BAD_REQUEST', '--quota-file needs --tenant-header');
    return undefined;
  }
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/.test(name) || name.startsWith(':')) {
    throw fail(
      'BAD_REQUEST',
      `--tenant-header: expected a header name, got '${name.slice(0, 128)}'`,
    );
  }
  return name.toLowerCase();
}

function positive(name: string, value: number): number {
  if (value === 0) throw fail('BAD_REQUEST', `--${name}: expected an integer >= 1, got 0`);
  return value;
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

function compressionLevel(v: string): CompressionLevel {
  if (v === 'none' || v === 'low' || v === 'med' || v === 'high') return v;
  throw fail(
    'BAD_REQUEST',
    `--grpc-infer-response-compression-level: expected none, low, med or high, got '${v}'`,
  );
}

function isBool(v: string | undefined): v is string {
  return v !== undefined && /^(true|false|1|0|yes|no|on|off)$/i.test(v);
}

/** `--model-config-name`: a plain file name (no path), the stem of `configs/<name>.pbtxt`. */
function modelConfigName(v: string): string {
  if (v !== '' && !/^[A-Za-z0-9._-]{1,128}$/.test(v)) {
    throw fail(
      'BAD_REQUEST',
      `--model-config-name: expected a plain file name (letters, digits, '.', '_' or '-'), got '${v.slice(0, 128)}'`,
    );
  }
  if (v === '.' || v === '..') {
    throw fail('BAD_REQUEST', `--model-config-name: expected a plain file name, got '${v}'`);
  }
  return v;
}

/** --record-requests-rate: a share from 0 to 1. */
function recordRate(text: string | undefined): number {
  if (text === undefined) return DEFAULT_OPTIONS.recordRequestsRate;
  const n = Number(text);
  if (text.trim() === '' || !(n >= 0 && n <= 1)) {
    throw fail('BAD_REQUEST', `--record-requests-rate expects a number from 0 to 1, got "${text}"`);
  }
  return n;
}

function logFormat(value: string): LogFormat {
  if (isLogFormat(value)) return value;
  throw fail(
    'BAD_REQUEST',
    `--log-format: expected one of ${LOG_FORMATS.join(', ')}, got '${value}'`,
  );
}
