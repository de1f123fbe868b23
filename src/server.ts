// Composes the server: model repository -> registry -> data plane -> HTTP and gRPC front ends, plus the
// metrics endpoint; and hands them to the shutdown sequence (shutdown.ts). `cli/main.ts` wires
// signals to `shutdown` and `stopNow`; tests start servers in-process with it.

import { RequestRecorder } from './dataplane/request-recorder.js';
import { ShadowRunner } from './dataplane/shadow-runner.js';
import { OtelExport } from './trace/otel-export.js';
import { RequestTracer } from './trace/request-tracer.js';
import { NO_QUOTAS, readQuotaFile } from './tenant/quota-file.js';
import { QuotaReload } from './tenant/quota-reload.js';
import { TenantGate } from './tenant/tenant-gate.js';
import { TenantMetrics } from './tenant/tenant-metrics.js';
import { tenantField, tenantLogField } from './tenant/tenant-field.js';
import { FrontEndThreads } from './cluster/front-end-threads.js';
import { threadsUnavailableReason } from './cluster/thread-count.js';
import { parseBackendConfig } from './config/backend-config.js';
import { readBackendSettings } from './repository/backends/registry.js';
import type { ServerOptions } from './cli/server-options.js';
import { RegistryDataPlane } from './dataplane/data-plane.js';
import { CacheFailures } from './cache/cache-failures.js';
import type { CachedResponse } from './cache/cached-response.js';
import { LocalCache } from './cache/local-cache.js';
import { RedisCache } from './cache/redis-cache.js';
import { ReplyReplay, responseView, type LocalEntry } from './cache/reply-replay.js';
import type { ResponseCache } from './cache/response-cache.js';
import { startGrpcServer, type GrpcFrontEnd } from './grpc/grpc-server.js';
import { freePort } from './http/free-port.js';
import type { FrontEnd } from './http/front-end.js';
import { reusePortUnsupported, selectFrontEnd } from './http/select-front-end.js';
import { kserveRoutes } from './http/kserve-routes.js';
import { StageRecorder } from './trace/stage-recorder.js';
import { RestrictedApis } from './http/restricted-apis.js';
import { logControlOf, type Logger } from './logger.js';
import { LogControl } from './logging/log-control.js';
import { logSettingsOf } from './logging/log-settings.js';
import type { LogSettingsPort } from './logging/log-settings.js';
import { ortLogSeverity, setOrtEnvLogLevel } from './execution/onnxruntime/ort-log-level.js';
import { GpuMonitor } from './metrics/gpu-metrics.js';
import { MetricsCatalog } from './metrics/metrics-catalog.js';
import { ShadowMetrics } from './metrics/shadow-metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.js';
import { ModelManager } from './repository/model-manager.js';
import type { ModelRegistry } from './repository/model-registry.js';
import { ShutdownSequence } from './shutdown.js';
import { VERSION } from './version.js';
import { sharedMemoryBudget } from './memory/client-budget.js';
import { WsCounters } from './websocket/ws-counters.js';
import { streamingRoute, type StreamingRoute } from './websocket/ws-route.js';
import { RegionRegistry } from './shared-memory/region-registry.js';
import { RateLimiter } from './scheduler/rate-limit/rate-limiter.js';

export interface RunningServer {
  readonly httpPort: number;
  readonly metricsPort: number | undefined;
  /** The gRPC port (absent with --allow-grpc=false). */
  readonly grpcPort: number | undefined;
  readonly frontEnd: string;
  /** Threads serving HTTP and WebSocket now, the main thread included (--http-thread-count). */
  httpThreads(): number;
  /** The threads beside the main one, when --http-thread-count > 1 took effect. */
  readonly frontEndThreads: FrontEndThreads | undefined;
  readonly registry: ModelRegistry;
  /** Loads, reloads and unloads models (the repository API and poll mode act through it). */
  readonly models: ModelManager;
  readonly dataPlane: RegistryDataPlane;
  readonly metrics: MetricsCatalog;
  /** Client shared-memory registrations (absent with --allow-client-shm=false). */
  readonly sharedMemory: RegionRegistry | undefined;
  /** The WebSocket endpoint (absent with --allow-websocket=false). */
  readonly websocket: StreamingRoute | undefined;
  /**
   * Drains and stops (once; later calls return the same promise): readiness fails at once, the
   * listeners accept for --drain-delay-secs and then close, requests in flight and those arriving
   * on connections already open are served, then workers and sockets close. `timeoutMs` bounds
   * the whole; past it the drain is cut short as by `stopNow`. Resolves true when everything
   * drained, false when it was cut short.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
  /**
   * Cuts the drain short, as a second signal does (starting the shutdown if it has not begun):
   * queued requests are answered SHUTTING_DOWN at once, running ones when their run returns, and
   * the workers stop only after that, so the process is never aborted under a run. Resolves as
   * `shutdown` does (false).
   */
  stopNow(reason: string): Promise<boolean>;
}

export async function startServer(options: ServerOptions, logger: Logger): Promise<RunningServer> {
  const backend = parseBackendConfig(options.backendConfig);
  // Each backend checks the settings it reads now, so a bad value fails the start, not a load.
  for (const s of readBackendSettings(backend).unused) {
    logger.warn({ flag: s.flag }, 'no backend infernode runs reads this --backend-config setting');
  }
  // The log settings the logging extension reads and changes: the logger's own when it follows a
  // LogControl (createLogger), else (an embedding's logger) a control that still steers the
  // front-end threads' records and ONNX Runtime's.
  const logging = logControlOf(logger) ?? new LogControl(logSettingsOf(options));
  const loggingPort: LogSettingsPort = {
    logSettings: (update) => (update === undefined ? logging.settings : logging.update(update)),
  };
  // Whichever thread the request arrived on, in the new settings (a format change shows at once).
  logging.onChange((settings) => logger.info({ settings }, 'log settings changed'));
  // Before the first ORT session of the process (the model reads and probes below).
  setOrtEnvLogLevel(ortLogSeverity(logging.settings));
  const metrics = new MetricsCatalog();
  // Before any worker or front-end thread starts: each is told how often to send its readings.
  if (options.allowMetrics) metrics.threads.configure(options.metricsIntervalMs);
  // Before any model loads: a cache setting that fails (an unreadable TLS file) leaves nothing
  // running behind the failed start. One cache for every model and every front-end thread: the
  // threads' data planes forward inference to this one (cluster/remote-data-plane.ts).
  const { responseCache, replies } = (await createResponseCache(options, metrics, logger)) ?? {};
  const usage = responseCache?.usage?.bind(responseCache);
  if (usage !== undefined) metrics.watchCache(usage);
  // --rate-limit=execution_count: one resource table for every model's instances.
  const rateLimiter =
    options.rateLimit.mode === 'off' ? undefined : new RateLimiter(options.rateLimit);
  if (rateLimiter !== undefined) {
    logger.info(
      { mode: options.rateLimit.mode, resources: options.rateLimit.resources },
      'rate limiter on',
    );
  }
  const models = new ModelManager({
    mode: options.modelControlMode,
    repositories: options.modelRepositories,
    startupModels: options.loadModels,
    pollSecs: options.repositoryPollSecs,
    backend,
    disableAutoComplete: options.disableAutoCompleteConfig,
    modelConfigName: options.modelConfigName,
    sabTensors: options.disableSabTensors ? false : 'auto',
    doorbell: !options.disableDoorbell,
    maxInputBytes: options.httpMaxInputSize,
    catalog: metrics,
    logger,
    responseCache: options.cacheConfig !== undefined,
    // Read at each load: sessions created after a change follow it (ORT fixes it per session).
    ortLogSeverity: () => ortLogSeverity(logging.settings),
    ...(rateLimiter !== undefined && { rateLimiter }),
  });
  const registry = models.registry;
  await models.start();
  const failed = registry.all().filter((e) => e.state !== 'READY');
  if (failed.length > 0 && options.exitOnError) {
    await Promise.all([models.close(), responseCache?.close?.()]);
    throw new Error(
      `failed to load ${failed.map((e) => `'${e.name}'`).join(', ')}; exiting (--exit-on-error=true)`,
    );
  }

  // Client shared-memory registrations (--allow-client-shm): dropped, their fds closed, when the
  // server has stopped.
  const sharedMemory = options.allowClientShm
    ? new RegionRegistry({
        limits: { maxRegions: options.clientShmMaxRegions, maxBytes: options.clientShmMaxBytes },
      })
    : undefined;
  // --record-requests: sampled requests to disk as validation samples (docs/validate.md).
  const recorder =
    options.recordRequests === undefined
      ? undefined
      : new RequestRecorder({
          dir: options.recordRequests,
          rate: options.recordRequestsRate,
          maxBytes: options.recordRequestsMaxBytes,
        });
  // Triton's trace extension (--trace-config): spans are built on the main thread, whichever
  // thread decoded the request, and exported in batches; the ones dropped are counted.
  const otel = new OtelExport(options.traceConfig.export, (n) => metrics.traceSpansDropped.inc(n));
  const tracer = new RequestTracer(options.traceConfig.settings, otel);
  // --tenant-header / --quota-file: read now (a bad file stops the start, naming where), then
  // reloaded on SIGHUP and on change; without the flag nothing of it exists.
  const tenants =
    options.tenantHeader === undefined
      ? undefined
      : new TenantGate(
          options.quotaFile === undefined ? NO_QUOTAS : readQuotaFile(options.quotaFile),
          new TenantMetrics(metrics.registry, options.tenantMetricsMax),
        );
  const quotaReload =
    tenants !== undefined && options.quotaFile !== undefined
      ? new QuotaReload(options.quotaFile, tenants, logger)
      : undefined;
  const tenantHeader =
    options.tenantHeader === undefined ? {} : { tenantHeader: options.tenantHeader };
  const dataPlane = new RegistryDataPlane(registry, models, {
    tracer,
    ...(tenants !== undefined && { tenants }),
    version: VERSION,
    serverName: options.serverName,
    strictReadiness: options.strictReadiness,
    maxInputBytes: options.httpMaxInputSize,
    ...(sharedMemory !== undefined && { sharedMemory }),
    ...(responseCache !== undefined && { responseCache }),
    ...(replies !== undefined && { replies }),
    ...(recorder !== undefined && { recorder }),
    // Shadow versions: idle unless a model's config names one (docs/releasing-models.md).
    shadows: new ShadowRunner(
      registry,
      new ShadowMetrics(metrics.registry),
      options.httpMaxInputSize,
    ),
  });
  models.useInference((model, version, request, ctx) =>
    dataPlane.infer(model, version, request, ctx),
  );
  const restricted = new RestrictedApis(options.httpRestrictedApis);
  // One budget for what every gRPC stream, WebSocket and HTTP request body holds for its client
  // (docs/operations.md). Counted in shared memory: the front-end threads draw on the same figure.
  const budgetCounter = new SharedArrayBuffer(8);
  const clientBudget = sharedMemoryBudget(options.clientMemoryBudget, budgetCounter);
  metrics.watchClientMemory(() => clientBudget.reservedBytes);
  // Shared with the front-end threads' routes, so the counts are the process's.
  const wsCounters = new SharedArrayBuffer(WsCounters.SHARED_BYTES);
  const websocket = options.allowWebsocket
    ? streamingRoute(dataPlane, {
        restricted,
        limits: {
          maxFrameBytes: options.wsMaxFrameSize,
          maxInflight: options.wsMaxInflight,
          maxQueuedBytes: options.wsMaxQueuedBytes,
        },
        budget: clientBudget,
        counters: new WsCounters(wsCounters),
        onServerError: (err, tenant) =>
          logger.error({ code: err.code, path: '/v2/ws', ...tenantLogField(tenant) }, err.message),
        ...tenantHeader,
      })
    : undefined;
  const wantedThreads = options.httpThreadCount;
  // Threads share one fixed port: "any port" (0) is chosen here, before the first listener.
  const port =
    wantedThreads > 1 && options.httpPort === 0
      ? await freePort(options.httpAddress)
      : options.httpPort;
  // The connection limits of every front-end thread's adapter alike.
  const limits = {
    headersTimeoutMs: options.httpHeaderTimeoutSecs * 1000,
    bodyTimeoutMs: options.httpBodyTimeoutSecs * 1000,
    keepAliveTimeoutMs: options.httpIdleTimeoutSecs * 1000,
    maxConnections: options.httpMaxConnections,
  };
  const selected = await selectFrontEnd({
    frontEnd: options.httpFrontEnd,
    host: options.httpAddress,
    port,
    maxBodyBytes: options.httpMaxInputSize,
    clientBudget,
    limits,
    // node:http before Node 22.12 ignores the option: the checks below say so instead.
    reusePort: wantedThreads > 1 || options.reuseHttpPort,
    ...(websocket !== undefined ? { websocket } : {}),
  });
  if (selected.reason !== undefined) logger.warn(selected.reason);
  const frontEnd = selected.frontEnd;
  const noThreads =
    wantedThreads > 1
      ? threadsUnavailableReason({
          frontEndKind: frontEnd.kind,
          traceStages: options.traceStages,
          maxConnections: options.httpMaxConnections,
        })
      : undefined;
  if (noThreads !== undefined) {
    logger.warn(
      `--http-thread-count=${wantedThreads}: ${noThreads}; serving HTTP and WebSocket on one thread`,
    );
  }
  const noHttpReuse = options.reuseHttpPort ? reusePortUnsupported(frontEnd.kind) : undefined;
  if (noHttpReuse !== undefined) logger.warn(`--reuse-http-port: ${noHttpReuse}; not shared`);
  const noGrpcReuse = options.reuseGrpcPort ? reusePortUnsupported('node-http') : undefined;
  if (noGrpcReuse !== undefined) {
    logger.warn(`--reuse-grpc-port: node:http2 ${noGrpcReuse.slice('node:http '.length)}`);
  }
  const httpPort = await frontEnd.listen(
    restricted.guard(
      kserveRoutes(dataPlane, {
        maxBodyBytes: options.httpMaxInputSize,
        logging: loggingPort,
        ...tenantHeader,
        ...(options.traceStages && { stages: new StageRecorder() }),
        onServerError: (err, call) =>
          logger.error(
            { code: err.code, path: call.path.slice(0, 200), ...tenantField(options, call) },
            err.message,
          ),
      }),
    ),
  );
  let http: FrontEnd = frontEnd;
  let threads: FrontEndThreads | undefined;
  if (wantedThreads > 1 && noThreads === undefined) {
    threads = await FrontEndThreads.start(frontEnd, {
      extra: wantedThreads - 1,
      config: {
        frontEnd: frontEnd.kind === 'uws' ? 'uws' : 'node',
        host: options.httpAddress,
        port: httpPort,
        maxBodyBytes: options.httpMaxInputSize,
        limits,
        restrictedApis: options.httpRestrictedApis,
        ...tenantHeader,
        clientBudget: { limitBytes: options.clientMemoryBudget, counter: budgetCounter },
        ...(metrics.threads.intervalMs !== undefined && {
          readingsIntervalMs: metrics.threads.intervalMs,
        }),
        ...(websocket !== undefined && {
          websocket: { limits: websocket.limits, counters: wsCounters },
        }),
      },
      plane: dataPlane,
      logger,
      logging,
      onRestart: () => metrics.frontEndRestarts.inc(),
      onThreadCount: (n) => metrics.frontEndThreads.set(n),
      threadMetrics: metrics.threads,
      requestCounter: (index) => {
        const child = metrics.frontEndThreadRequests.labels(String(index));
        return () => child.inc();
      },
    });
    http = threads;
  }
  metrics.frontEndThreads.set(threads?.threadCount ?? 1);
  let grpc: GrpcFrontEnd | undefined;
  if (options.allowGrpc) {
    grpc = await startGrpcServer(dataPlane, {
      address: options.grpcAddress,
      port: options.grpcPort,
      compressionLevel: options.grpcInferResponseCompressionLevel,
      keepaliveTimeMs: options.grpcKeepaliveTimeMs,
      keepaliveTimeoutMs: options.grpcKeepaliveTimeoutMs,
      maxReceiveBytes: options.grpcMaxInputSize,
      restrictions: options.grpcRestrictedProtocols,
      reusePort: options.reuseGrpcPort && noGrpcReuse === undefined,
      budget: clientBudget,
      maxConcurrentStreams: options.grpcMaxConcurrentStreams,
      onServerError: (err, rpc, tenant) =>
        logger.error({ code: err.code, rpc, ...tenantLogField(tenant) }, err.message),
      logging: loggingPort,
      ...tenantHeader,
    });
  }
  let metricsServer: MetricsServer | undefined;
  if (options.allowMetrics) {
    metricsServer = await startMetricsServer(
      metrics.registry,
      options.metricsAddress,
      options.metricsPort,
    );
    // The main thread's, the threads' and (--allow-cpu-metrics) the host's readings, on a timer.
    if (options.allowCpuMetrics) metrics.watchCpu();
    metrics.threads.start(options.allowCpuMetrics);
    const withoutThreads = metricsServer;
    metricsServer = {
      port: withoutThreads.port,
      close: async () => {
        metrics.threads.stop();
        await withoutThreads.close();
      },
    };
    if (options.allowGpuMetrics) {
      // Started once the endpoint listens, so a start-up that fails leaves no process behind.
      const gpus = new GpuMonitor({ intervalMs: options.metricsIntervalMs, logger });
      metrics.watchGpus(() => gpus.readings());
      gpus.start();
      // The shutdown closes the endpoint and stops nvidia-smi together: nothing reads it after.
      const endpoint = metricsServer;
      metricsServer = {
        port: endpoint.port,
        close: async () => {
          await Promise.all([endpoint.close(), gpus.stop()]);
        },
      };
    }
  }
  logger.info(
    { frontEnd: frontEnd.kind, httpPort, grpcPort: grpc?.port, metricsPort: metricsServer?.port },
    `serving HTTP on ${options.httpAddress}:${httpPort} with ${frontEnd.kind}` +
      (threads !== undefined ? ` on ${threads.threadCount} threads` : '') +
      (grpc ? `, gRPC on ${options.grpcAddress}:${grpc.port}` : '') +
      (metricsServer ? `, metrics on ${options.metricsAddress}:${metricsServer.port}` : ''),
  );

  if (options.drainDelaySecs > 0 && options.drainDelaySecs >= options.exitTimeoutSecs) {
    logger.warn(
      `--drain-delay-secs ${options.drainDelaySecs} is not below --exit-timeout-secs ` +
        `${options.exitTimeoutSecs}, which bounds the whole shutdown: requests in flight when the ` +
        'listeners close get no time to finish',
    );
  }
  const shutdown = new ShutdownSequence({
    logger,
    dataPlane,
    models,
    // Versions still draining after a reload or unload too: a shutdown cut short answers their
    // queues at once as well, instead of running them first.
    schedulers: () => [
      ...registry.all().flatMap((e) => [...e.versions.values()].map((v) => v.scheduler)),
      ...models.leavingSchedulers(),
    ],
    http,
    websocket:
      websocket === undefined
        ? undefined
        : {
            shutdown: async () => {
              await Promise.all([websocket.shutdown(), threads?.websocketShutdown()]);
            },
          },
    grpc,
    metrics: metricsServer,
    drainDelayMs: options.drainDelaySecs * 1000,
  });

  return {
    httpPort,
    metricsPort: metricsServer?.port,
    grpcPort: grpc?.port,
    frontEnd: frontEnd.kind,
    httpThreads: () => threads?.threadCount ?? 1,
    frontEndThreads: threads,
    registry,
    models,
    dataPlane,
    metrics,
    websocket,
    sharedMemory,
    shutdown: (timeoutMs) =>
      shutdown.run(timeoutMs).finally(async () => {
        sharedMemory?.close();
        quotaReload?.close();
        await Promise.all([
          responseCache?.close?.(),
          otel.shutdown(),
          flushRecorder(recorder, logger),
        ]);
      }),
    stopNow: (reason) =>
      shutdown.cutShort(reason, options.exitTimeoutSecs * 1000).finally(async () => {
        sharedMemory?.close();
        quotaReload?.close();
        await Promise.all([
          responseCache?.close?.(),
          otel.shutdown(),
          flushRecorder(recorder, logger),
        ]);
      }),
  };
}

/** What --record-requests wrote, once the last answer is written out (the counts, logged). */
async function flushRecorder(recorder: RequestRecorder | undefined, logger: Logger): Promise<void> {
  if (recorder === undefined) return;
  await recorder.flush();
  logger.info(recorder.stats(), 'recorded requests');
}

/** Least time between two WARN lines about one failing response-cache operation. */
const CACHE_WARN_INTERVAL_MS = 60_000;

/** The server's response cache from --cache-config (none without it). */
async function createResponseCache(
  options: ServerOptions,
  metrics: MetricsCatalog,
  logger: Logger,
): Promise<
  | { readonly responseCache: ResponseCache<CachedResponse>; readonly replies?: ReplyReplay }
  | undefined
> {
  const config = options.cacheConfig;
  if (config === undefined) return undefined;
  if (config.kind === 'local') {
    // One store and budget for both tiers: responses by validated request, replies by bytes.
    const store = new LocalCache<LocalEntry>(config.size);
    return { responseCache: responseView(store), replies: new ReplyReplay(store) };
  }
  const errors = metrics.cacheErrors();
  const failures = new CacheFailures({
    count: (op) => errors.inc({ op }),
    logger,
    intervalMs: CACHE_WARN_INTERVAL_MS,
  });
  let lastConnectionWarn = -Infinity;
  const responseCache = await RedisCache.create(config, {
    failed: (op, e) => failures.failed(op, e),
    connectionError: (e) => {
      const now = performance.now();
      if (now - lastConnectionWarn < CACHE_WARN_INTERVAL_MS) return;
      lastConnectionWarn = now;
      logger.warn(
        { host: config.host, port: config.port },
        `response cache: Redis at ${config.host}:${config.port} unreachable (${e.message.slice(0, 300)}); ` +
          'requests are served by the model until it is back',
      );
    },
  });
  return { responseCache };
}
