// The server's options: Triton's flag names where they apply, parsed once from argv, validated and
// frozen. Nothing downstream reads argv or process.env.

import { availableParallelism } from 'node:os';
import { defaultHttpThreadCount } from '../cluster/thread-count.js';
import { fail } from '../errors.js';
import type { CompressionLevel } from '../grpc/grpc-server.js';
import { parseRestrictions, type Restriction } from '../grpc/restricted-protocol.js';
import { parseApiRestrictions, type ApiRestriction } from '../http/restricted-apis.js';
import { parseFrontEndChoice, type FrontEndChoice } from '../http/select-front-end.js';
import { isValidModelName } from '../repository/model-name.js';
import { isLogFormat, LOG_FORMATS, type LogFormat } from '../logging/log-settings.js';
import { MODEL_CONTROL_MODES, type ModelControlMode } from '../repository/model-manager.js';
import { DEFAULT_CLIENT_MEMORY_BUDGET_BYTES } from '../memory/client-budget.js';
import { DEFAULT_WS_LIMITS } from '../websocket/ws-protocol.js';
import { DEFAULT_REGISTRY_LIMITS } from '../shared-memory/region-registry.js';
import { parseCacheConfig, type CacheConfig } from '../cache/cache-config.js';
import {
  parseRateLimitSettings,
  RATE_LIMIT_OFF,
  type RateLimitSettings,
} from '../scheduler/rate-limit/rate-limit-settings.js';
import { parseTraceConfig, type TraceConfig } from '../trace/trace-config.js';

export interface ServerOptions {
  readonly modelRepositories: readonly string[];
  /** `--model-control-mode`: none (load all at start), explicit (the repository API), poll. */
  readonly modelControlMode: ModelControlMode;
  /** `--load-model` names, explicit mode only; `*` loads every model. */
  readonly loadModels: readonly string[];
  /** `--repository-poll-secs`: seconds between repository scans in poll mode. */
  readonly repositoryPollSecs: number;
  readonly httpAddress: string;
  readonly httpPort: number;
  readonly allowMetrics: boolean;
  /** Export nv_gpu_* and nv_energy_consumption, read from nvidia-smi (with --allow-metrics only). */
  readonly allowGpuMetrics: boolean;
  /** Export nv_cpu_utilization and nv_cpu_memory_* from /proc (with --allow-metrics only). */
  readonly allowCpuMetrics: boolean;
  /**
   * Milliseconds between GPU readings (nvidia-smi's -lms), host CPU readings and the per-thread
   * figures (Triton's --metrics-interval-ms).
   */
  readonly metricsIntervalMs: number;
  readonly metricsAddress: string;
  readonly metricsPort: number;
  /** Raw `--backend-config` values, in order; parsed by the config pipeline. */
  readonly backendConfig: readonly string[];
  readonly strictReadiness: boolean;
  /** The `name` GET /v2 reports: "infernode", or "triton" for clients that check it. */
  readonly serverName: string;
  readonly exitOnError: boolean;
  /** Seconds the whole shutdown may take (drain delay included) before it is cut short. */
  readonly exitTimeoutSecs: number;
  /** Seconds the listeners keep accepting after readiness fails on SIGTERM (for balancers). */
  readonly drainDelaySecs: number;
  readonly logVerbose: number;
  /** Triton's --log-info/--log-warning/--log-error, --log-format and --log-file ('' = stdout). */
  readonly logInfo: boolean;
  readonly logWarning: boolean;
  readonly logError: boolean;
  readonly logFormat: LogFormat;
  readonly logFile: string;
  readonly httpMaxInputSize: number;
  /** Seconds a client may take to send a request's head. */
  readonly httpHeaderTimeoutSecs: number;
  /** Longest silence, in seconds, while a request's body is arriving. */
  readonly httpBodyTimeoutSecs: number;
  /** Seconds a keep-alive connection may sit between requests. */
  readonly httpIdleTimeoutSecs: number;
  /** Open HTTP connections at most (WebSockets included); 0: no cap. */
  readonly httpMaxConnections: number;
  readonly disableAutoCompleteConfig: boolean;
  /** `--model-config-name`: models with `configs/<name>.pbtxt` use it instead of config.pbtxt. */
  readonly modelConfigName: string;
  readonly httpFrontEnd: FrontEndChoice;
  /**
   * Threads accepting HTTP and WebSocket connections on the HTTP port, the main thread included
   * (Triton's --http-thread-count); each decodes and encodes its own requests.
   */
  readonly httpThreadCount: number;
  /** Listen on the HTTP port with SO_REUSEPORT, so other processes can share it. */
  readonly reuseHttpPort: boolean;
  /** Listen on the gRPC port with SO_REUSEPORT, so other processes can share it. */
  readonly reuseGrpcPort: boolean;
  /** Force the worker input-copy path even where ORT accepts SharedArrayBuffer tensors (tests). */
  readonly disableSabTensors: boolean;
  /** Hand ORT runs to workers as piscina tasks instead of over the doorbell (tests, comparisons). */
  readonly disableDoorbell: boolean;
  /** Time every HTTP inference request stage by stage, served at GET /v2/debug/stages. */
  readonly traceStages: boolean;
  /** Serve the streaming WebSocket protocol on the HTTP port (/v2/ws). */
  readonly allowWebsocket: boolean;
  /** Largest WebSocket frame in bytes; a bigger frame closes the socket (1009 on node, 1006 on uWS). */
  readonly wsMaxFrameSize: number;
  /** Requests one WebSocket may have in flight; more get an error frame. */
  readonly wsMaxInflight: number;
  /** Unread response bytes one WebSocket may hold; a slower client is closed with 1008. */
  readonly wsMaxQueuedBytes: number;
  /** Bytes held for clients across gRPC streams, WebSockets and HTTP bodies (client-budget.ts); 0: none. */
  readonly clientMemoryBudget: number;
  /** Streams one gRPC (HTTP/2) connection may have open at once. */
  readonly grpcMaxConcurrentStreams: number;
  /** Serve Triton's GRPCInferenceService and grpc.health.v1.Health. */
  readonly allowGrpc: boolean;
  readonly grpcAddress: string;
  readonly grpcPort: number;
  readonly grpcInferResponseCompressionLevel: CompressionLevel;
  readonly grpcKeepaliveTimeMs: number;
  readonly grpcKeepaliveTimeoutMs: number;
  /** Largest gRPC request message in bytes. */
  readonly grpcMaxInputSize: number;
  readonly grpcRestrictedProtocols: readonly Restriction[];
  /** HTTP and WebSocket APIs that need a header (--http-restricted-api); a category at most once. */
  readonly httpRestrictedApis: readonly ApiRestriction[];
  /** Triton's --allow-client-shm: register and use client system shared-memory regions. */
  readonly allowClientShm: boolean;
  /** Shared-memory registrations at once (--client-shm-max-regions). */
  readonly clientShmMaxRegions: number;
  /** Sum of the registered regions' byte sizes (--client-shm-max-bytes). */
  readonly clientShmMaxBytes: number;
  /**
   * The response cache (`--cache-config`, or the deprecated `--response-cache-byte-size`);
   * undefined: none, and a model with `response_cache { enable: true }` is refused at load.
   */
  readonly cacheConfig: CacheConfig | undefined;
  /** --record-requests: where sampled requests are written (docs/validate.md); undefined: off. */
  readonly recordRequests: string | undefined;
  readonly recordRequestsRate: number;
  readonly recordRequestsMaxBytes: number;
  /** `--trace-config` (Triton's flag, OpenTelemetry mode): starting trace settings and export. */
  readonly traceConfig: TraceConfig;
  /** Triton's rate limiter: `--rate-limit` and `--rate-limit-resource` (off). */
  readonly rateLimit: RateLimitSettings;
  /** --tenant-header (lower-case): the header naming a request's tenant; undefined: no tenants. */
  readonly tenantHeader: string | undefined;
  /** --quota-file: the tenant quotas (src/tenant/quota-file.ts); needs --tenant-header. */
  readonly quotaFile: string | undefined;
  /** --tenant-metrics-max: tenants with their own metric label; later ones are `other`. */
  readonly tenantMetricsMax: number;
}

export const DEFAULT_OPTIONS: ServerOptions = Object.freeze({
  modelRepositories: [],
  modelControlMode: 'none',
  loadModels: [],
  repositoryPollSecs: 15,
  httpAddress: '0.0.0.0',
  httpPort: 8000,
  allowMetrics: true,
  allowGpuMetrics: true,
  allowCpuMetrics: true,
  metricsIntervalMs: 2000,
  metricsAddress: '',
  metricsPort: 8002,
  backendConfig: [],
  strictReadiness: true,
  serverName: 'infernode',
  exitOnError: true,
  exitTimeoutSecs: 30,
  // 0: a server with nothing routing by its readiness (a systemd unit, a dev shell) stops at once,
  // as Triton does. Behind a balancer or in Kubernetes, set it to the time the balancer takes to
  // notice (docs/operations.md).
  drainDelaySecs: 0,
  logVerbose: 0,
  logInfo: true,
  logWarning: true,
  logError: true,
  // JSON for services, journald and Loki; `--log-format=default` for a person (docs/operations.md).
  logFormat: 'json',
  logFile: '',
  httpMaxInputSize: 64 * 1024 * 1024,
  httpHeaderTimeoutSecs: 10,
  httpBodyTimeoutSecs: 10,
  httpIdleTimeoutSecs: 10,
  httpMaxConnections: 0,
  disableAutoCompleteConfig: false,
  modelConfigName: '',
  httpFrontEnd: 'auto',
  httpThreadCount: defaultHttpThreadCount(availableParallelism()),
  reuseHttpPort: false,
  reuseGrpcPort: false,
  disableSabTensors: false,
  disableDoorbell: false,
  traceStages: false,
  allowWebsocket: true,
  wsMaxFrameSize: DEFAULT_WS_LIMITS.maxFrameBytes,
  wsMaxInflight: DEFAULT_WS_LIMITS.maxInflight,
  wsMaxQueuedBytes: DEFAULT_WS_LIMITS.maxQueuedBytes,
  clientMemoryBudget: DEFAULT_CLIENT_MEMORY_BUDGET_BYTES,
  grpcMaxConcurrentStreams: 128,
  allowGrpc: true,
  grpcAddress: '0.0.0.0',
  grpcPort: 8001,
  grpcInferResponseCompressionLevel: 'none',
  // Triton's defaults (grpc_server.h KeepAliveOptions).
  grpcKeepaliveTimeMs: 7_200_000,
  grpcKeepaliveTimeoutMs: 20_000,
  grpcMaxInputSize: 64 * 1024 * 1024,
  grpcRestrictedProtocols: [],
  httpRestrictedApis: [],
  // Off, as in Triton since 26.04: a region is memory any local process may write, so reading
  // tensors from it is something an operator turns on (docs/http-protocol.md).
  allowClientShm: false,
  clientShmMaxRegions: DEFAULT_REGISTRY_LIMITS.maxRegions,
  clientShmMaxBytes: DEFAULT_REGISTRY_LIMITS.maxBytes,
  cacheConfig: undefined,
  recordRequests: undefined,
  recordRequestsRate: 0.01,
  recordRequestsMaxBytes: 268435456,
  traceConfig: parseTraceConfig([]),
  rateLimit: RATE_LIMIT_OFF,
  tenantHeader: undefined,
  quotaFile: undefined,
  tenantMetricsMax: 32,
});

const DEFAULT_OPTIONS_THREADS = DEFAULT_OPTIONS.httpThreadCount;

/** Flags infernode accepts, each with its kind; `help` appears in --help. */
export const FLAGS = {
  'model-repository': {
    kind: 'string',
    repeat: true,
    help: 'Model repository path (repeatable). Alias: --model-store',
  },
  'model-store': { kind: 'string', repeat: true, help: 'Alias of --model-repository' },
  'http-address': { kind: 'string', help: 'Address HTTP and WebSocket listen on (0.0.0.0)' },
  'http-port': { kind: 'port', help: 'HTTP and WebSocket port (8000)' },
  'allow-metrics': { kind: 'bool', help: 'Serve Prometheus metrics (true)' },
  'allow-gpu-metrics': {
    kind: 'bool',
    help: 'Export GPU metrics (nv_gpu_*, nv_energy_consumption) read from nvidia-smi, where it exists (true)',
  },
  'allow-cpu-metrics': {
    kind: 'bool',
    help: 'Export host CPU metrics (nv_cpu_utilization, nv_cpu_memory_*) read from /proc (true)',
  },
  'metrics-interval-ms': {
    kind: 'uint',
    help: 'Milliseconds between GPU, CPU and per-thread metric readings (2000)',
  },
  'metrics-address': { kind: 'string', help: 'Metrics address (defaults to --http-address)' },
  'metrics-port': { kind: 'port', help: 'Prometheus metrics port (8002)' },
  'backend-config': {
    kind: 'string',
    repeat: true,
    help: '[<backend>,]<key>=<value>, e.g. onnxruntime,default-max-batch-size=8',
  },
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
  'log-verbose': {
    kind: 'uint',
    help: "Verbose logging level; >= 1 logs debug records and ONNX Runtime's warnings (0)",
  },
  'log-info': { kind: 'bool', help: 'Write info records (true)' },
  'log-warning': { kind: 'bool', help: 'Write warning records (true)' },
  'log-error': { kind: 'bool', help: 'Write error records (true)' },
  'log-format': {
    kind: 'string',
    help: "json (one JSON object a line), default or ISO8601 (Triton's readable lines) (json)",
  },
  'log-file': { kind: 'string', help: 'Write the log to this file, appending, instead of stdout' },
  'http-max-input-size': {
    kind: 'uint',
    help: 'Largest request body in bytes, after decompression (67108864)',
  },
  'http-header-timeout-secs': {
    kind: 'uint',
    help: 'Seconds a client may take to send a request head; then the connection closes (10)',
  },
  'http-body-timeout-secs': {
    kind: 'uint',
    help: 'Longest silence in seconds while a request body arrives; then the connection closes (10)',
  },
  'http-idle-timeout-secs': {
    kind: 'uint',
    help: 'Seconds a keep-alive connection may wait for its next request (10)',
  },
  'http-max-connections': {
    kind: 'uint',
    help: 'Open HTTP connections at most, WebSockets included; more are closed at once (0: no cap)',
  },
  'disable-auto-complete-config': {
    kind: 'flag',
    help: 'Do not complete configs from the ONNX model',
  },
  'model-config-name': {
    kind: 'string',
    help: 'Use configs/<name>.pbtxt instead of config.pbtxt in models that have it',
  },
  'strict-model-config': {
    kind: 'bool',
    help: 'Deprecated: true = --disable-auto-complete-config',
  },
  'model-control-mode': {
    kind: 'string',
    help: 'none | explicit | poll: load every model at start; load with the API; rescan (none)',
  },
  'repository-poll-secs': {
    kind: 'uint',
    help: 'Seconds between repository scans in poll mode (15)',
  },
  'load-model': {
    kind: 'string',
    repeat: true,
    help: 'Model to load at start in explicit mode (repeatable; * loads every model)',
  },
  'http-front-end': { kind: 'string', help: 'auto | uws | node: which HTTP server to use (auto)' },
  'http-thread-count': {
    kind: 'uint',
    help:
      'Threads serving HTTP and WebSocket on the HTTP port, main included ' +
      `(half the cores, 1 to 8: ${DEFAULT_OPTIONS_THREADS} here)`,
  },
  'reuse-http-port': {
    kind: 'bool',
    help: 'Listen on the HTTP port with SO_REUSEPORT so several processes can share it (false)',
  },
  'reuse-grpc-port': {
    kind: 'bool',
    help: 'Listen on the gRPC port with SO_REUSEPORT so several processes can share it (false)',
  },
  'disable-sab-tensors': {
    kind: 'flag',
    help: 'Copy inputs in workers even where ORT reads shared memory',
  },
  'disable-doorbell': {
    kind: 'flag',
    help: 'Hand ORT runs to workers as piscina tasks instead of over the doorbell',
  },
  'trace-stages': {
    kind: 'flag',
    help: 'Time HTTP inference requests stage by stage; served at GET /v2/debug/stages',
  },
  'allow-websocket': {
    kind: 'bool',
    help: 'Serve the streaming WebSocket protocol at /v2/ws on the HTTP port (true)',
  },
  'ws-max-frame-size': {
    kind: 'uint',
    help: 'Largest WebSocket frame in bytes; a larger one closes the socket: 1009 on the node front end, uWS drops the connection (clients see 1006) (67108864)',
  },
  'ws-max-inflight': {
    kind: 'uint',
    help: 'Requests one WebSocket may have in flight; more get an error frame (1024)',
  },
  'ws-max-queued-bytes': {
    kind: 'uint',
    help: 'Unread response bytes per WebSocket before it is closed with 1008 (67108864)',
  },
  'client-memory-budget': {
    kind: 'uint',
    help: 'Bytes held for clients (unread answers, queued requests, windows of paused streams, HTTP request bodies being read) over all gRPC streams, WebSockets and HTTP requests; over it a stream gets RESOURCE_EXHAUSTED, a socket closes with 1013, an HTTP request gets 503; 0: no limit (167772160)',
  },
  'allow-client-shm': {
    kind: 'bool',
    help: "Let clients register system shared-memory regions (/v2/systemsharedmemory, gRPC SystemSharedMemory*) and name them in inference requests, as Triton's flag (false)",
  },
  'client-shm-max-regions': {
    kind: 'uint',
    help: 'Shared-memory regions registered at once; more are refused (1024)',
  },
  'client-shm-max-bytes': {
    kind: 'uint',
    help: 'Sum of the byte sizes of the registered shared-memory regions; more are refused (17179869184)',
  },
  'cache-config': {
    kind: 'string',
    repeat: true,
    help: "<cache>,<key>=<value>: the response cache, as Triton's flag; local,size=<bytes> is one LRU shared by every model with response_cache { enable: true }; redis,host=<h>,port=<p> is a Redis shared by replicas (repeatable; none)",
  },
  'record-requests': {
    kind: 'string',
    help: 'Write a sampled share of answered inference requests (inputs and answer, no headers) to <dir>/<model>/, as samples for infernode validate (off)',
  },
  'record-requests-rate': {
    kind: 'string',
    help: 'Share of answered requests recorded, 0..1 (0.01)',
  },
  'record-requests-max-bytes': {
    kind: 'uint',
    help: 'Tensor bytes recorded at most; then recording stops (268435456)',
  },
  'trace-config': {
    kind: 'string',
    repeat: true,
    help: "[opentelemetry,]<setting>=<value>, as Triton's flag: mode=opentelemetry, level=TIMESTAMPS|OFF, rate=<n>, count=<n>, log-frequency=<n>; opentelemetry,url=<OTLP/HTTP endpoint>, opentelemetry,resource=<k>=<v>, opentelemetry,bsp_max_queue_size|bsp_schedule_delay|bsp_max_export_batch_size=<n> (repeatable; level=OFF)",
  },
  'rate-limit': {
    kind: 'string',
    help: "off | execution_count: Triton's rate limiter; with execution_count an instance runs only when the resources its instance group's rate_limiter asks for are free, and waiting instances run by priority-weighted execution count (off)",
  },
  'rate-limit-resource': {
    kind: 'string',
    repeat: true,
    help: '<name>:<count>[:<device>]: copies of a rate limiter resource, on one device or (no device) on each; once any is given, a resource not given has none (repeatable; the largest count any instance asks for)',
  },
  'tenant-header': {
    kind: 'string',
    help: "Header (HTTP, gRPC metadata, WebSocket upgrade) whose value is a request's tenant name: use a tenant id, not a secret (off)",
  },
  'quota-file': {
    kind: 'string',
    help: 'JSON file of per-tenant quotas (rps, burst, in_flight, queue, share); reloaded on SIGHUP and on change; needs --tenant-header (none)',
  },
  'tenant-metrics-max': {
    kind: 'uint',
    help: 'Tenants with their own label in infernode_tenant_* metrics; the rest are "other" (32)',
  },
  'response-cache-byte-size': {
    kind: 'uint',
    help: 'Deprecated (Triton): the same as --cache-config local,size=<bytes>',
  },
  'allow-grpc': {
    kind: 'bool',
    help: "Serve Triton's GRPCInferenceService and grpc.health.v1.Health (true)",
  },
  'grpc-address': { kind: 'string', help: 'Address gRPC listens on (0.0.0.0)' },
  'grpc-port': { kind: 'port', help: 'gRPC port (8001)' },
  'grpc-infer-response-compression-level': {
    kind: 'string',
    help: 'none | low | med | high: accepted for Triton command lines; no effect, grpc-js compresses no response (none)',
  },
  'grpc-keepalive-time': { kind: 'uint', help: 'Milliseconds between keepalive pings (7200000)' },
  'grpc-keepalive-timeout': {
    kind: 'uint',
    help: 'Milliseconds to wait for a keepalive ping answer (20000)',
  },
  'grpc-max-input-size': {
    kind: 'uint',
    help: 'Largest gRPC request message in bytes; larger get RESOURCE_EXHAUSTED (67108864)',
  },
  'grpc-max-concurrent-streams': {
    kind: 'uint',
    help: 'Streams one gRPC connection may have open at once (128)',
  },
  'grpc-restricted-protocol': {
    kind: 'string',
    repeat: true,
    help: '<protocol>[,<protocol>...]:<key>=<value>: require header triton-grpc-protocol-<key>',
  },
  'http-restricted-api': {
    kind: 'string',
    repeat: true,
    help: '<category>[,<category>...]:<header>=<value>: those HTTP/WebSocket APIs need the header',
  },
  help: { kind: 'flag', help: 'Print this help' },
  version: { kind: 'flag', help: 'Print the version' },
} as const satisfies Record<string, { kind: string; help: string; repeat?: boolean }>;

type FlagName = keyof typeof FLAGS;

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

export function helpText(): string {
  const rows = Object.entries(FLAGS).map(([n, f]) => `  --${n.padEnd(30)} ${f.help}`);
  return (
    'Usage: infernode --model-repository=<path> [flags]\n' +
    '       infernode validate --model-repository=<dir> --model=<name> --candidate=<version|file.onnx> [...]\n\n' +
    'Commands:\n' +
    '  validate                         Check a candidate model version against the serving one\n' +
    '                                   (signature, output agreement, latency); exit 0 pass, 1 fail,\n' +
    '                                   2 usage; `infernode validate --help` lists its flags\n\n' +
    `Flags:\n${rows.join('\n')}\n`
  );
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
