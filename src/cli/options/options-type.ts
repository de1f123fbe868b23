// The server's options as the command line leaves them: the ServerOptions type and its frozen
// defaults. Each group of flags (*-flags.ts) fills in its part.

import { availableParallelism } from 'node:os';
import { defaultHttpThreadCount } from '../../cluster/thread-count.js';
import type { CompressionLevel } from '../../grpc/grpc-server.js';
import type { Restriction } from '../../grpc/restricted-protocol.js';
import type { ApiRestriction } from '../../http/restricted-apis.js';
import type { FrontEndChoice } from '../../http/select-front-end.js';
import type { LogFormat } from '../../logging/log-settings.js';
import type { ModelControlMode } from '../../repository/model-manager.js';
import { DEFAULT_CLIENT_MEMORY_BUDGET_BYTES } from '../../memory/client-budget.js';
import { DEFAULT_WS_LIMITS } from '../../websocket/ws-protocol.js';
import { DEFAULT_REGISTRY_LIMITS } from '../../shared-memory/region-registry.js';
import type { CacheConfig } from '../../cache/cache-config.js';
import {
  RATE_LIMIT_OFF,
  type RateLimitSettings,
} from '../../scheduler/rate-limit/rate-limit-settings.js';
import { parseTraceConfig, type TraceConfig } from '../../trace/trace-config.js';

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
