// Composes the server: model repository -> registry -> data plane -> HTTP and gRPC front ends, plus the
// metrics endpoint; and owns the shutdown sequence (not ready -> stop accepting -> drain ->
// unload -> close). `cli.ts` wires signals to `shutdown`; tests start servers in-process with it.

import { parseBackendConfig } from './config/backend-config.js';
import type { ServerOptions } from './cli/server-options.js';
import { RegistryDataPlane } from './dataplane/data-plane.js';
import { startGrpcServer, type GrpcFrontEnd } from './grpc/grpc-server.js';
import { selectFrontEnd } from './http/select-front-end.js';
import { kserveRoutes } from './http/kserve-routes.js';
import { RestrictedApis } from './http/restricted-apis.js';
import type { Logger } from './logger.js';
import { MetricsCatalog } from './metrics/metrics-catalog.js';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.js';
import { ModelManager } from './repository/model-manager.js';
import type { ModelRegistry } from './repository/model-registry.js';
import { VERSION } from './version.js';
import { streamingRoute, type StreamingRoute } from './websocket/ws-route.js';

export interface RunningServer {
  readonly httpPort: number;
  readonly metricsPort: number | undefined;
  /** The gRPC port (absent with --allow-grpc=false). */
  readonly grpcPort: number | undefined;
  readonly frontEnd: string;
  readonly registry: ModelRegistry;
  /** Loads, reloads and unloads models (the repository API and poll mode act through it). */
  readonly models: ModelManager;
  readonly dataPlane: RegistryDataPlane;
  readonly metrics: MetricsCatalog;
  /** The WebSocket endpoint (absent with --allow-websocket=false). */
  readonly websocket: StreamingRoute | undefined;
  /**
   * Drains and stops: readiness fails at once, new connections are refused, queued and running
   * requests finish (bounded by `timeoutMs`), then workers and sockets close. Resolves true when
   * everything drained in time, false when the timeout cut it short.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

export async function startServer(options: ServerOptions, logger: Logger): Promise<RunningServer> {
  const backend = parseBackendConfig(options.backendConfig);
  const metrics = new MetricsCatalog();
  const models = new ModelManager({
    mode: options.modelControlMode,
    repositories: options.modelRepositories,
    startupModels: options.loadModels,
    pollSecs: options.repositoryPollSecs,
    backend,
    disableAutoComplete: options.disableAutoCompleteConfig,
    sabTensors: options.disableSabTensors ? false : 'auto',
    maxInputBytes: options.httpMaxInputSize,
    catalog: metrics,
    logger,
  });
  const registry = models.registry;
  await models.start();
  const failed = registry.all().filter((e) => e.state !== 'READY');
  if (failed.length > 0 && options.exitOnError) {
    await models.close();
    throw new Error(
      `failed to load ${failed.map((e) => `'${e.name}'`).join(', ')}; exiting (--exit-on-error=true)`,
    );
  }

  const dataPlane = new RegistryDataPlane(registry, models, {
    version: VERSION,
    strictReadiness: options.strictReadiness,
    maxInputBytes: options.httpMaxInputSize,
  });
  const restricted = new RestrictedApis(options.httpRestrictedApis);
  const websocket = options.allowWebsocket
    ? streamingRoute(dataPlane, {
        restricted,
        limits: {
          maxFrameBytes: options.wsMaxFrameSize,
          maxInflight: options.wsMaxInflight,
          maxQueuedBytes: options.wsMaxQueuedBytes,
        },
        onServerError: (err) => logger.error({ code: err.code, path: '/v2/ws' }, err.message),
      })
    : undefined;
  const selected = selectFrontEnd({
    frontEnd: options.httpFrontEnd,
    host: options.httpAddress,
    port: options.httpPort,
    maxBodyBytes: options.httpMaxInputSize,
    ...(websocket !== undefined ? { websocket } : {}),
  });
  if (selected.reason !== undefined) logger.warn(selected.reason);
  const frontEnd = selected.frontEnd;
  const httpPort = await frontEnd.listen(
    restricted.guard(
      kserveRoutes(dataPlane, {
        maxBodyBytes: options.httpMaxInputSize,
        onServerError: (err, call) =>
          logger.error({ code: err.code, path: call.path.slice(0, 200) }, err.message),
      }),
    ),
  );
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
      onServerError: (err, rpc) => logger.error({ code: err.code, rpc }, err.message),
    });
  }
  let metricsServer: MetricsServer | undefined;
  if (options.allowMetrics) {
    metricsServer = await startMetricsServer(
      metrics.registry,
      options.metricsAddress,
      options.metricsPort,
    );
  }
  logger.info(
    { frontEnd: frontEnd.kind, httpPort, grpcPort: grpc?.port, metricsPort: metricsServer?.port },
    `serving HTTP on ${options.httpAddress}:${httpPort} with ${frontEnd.kind}` +
      (grpc ? `, gRPC on ${options.grpcAddress}:${grpc.port}` : '') +
      (metricsServer ? `, metrics on ${options.metricsAddress}:${metricsServer.port}` : ''),
  );

  let shutdownPromise: Promise<boolean> | undefined;
  const shutdown = (timeoutMs: number): Promise<boolean> => {
    shutdownPromise ??= (async () => {
      logger.info({ timeoutMs }, 'drain started: not ready, refusing new connections');
      dataPlane.beginShutdown();
      models.stopPolling();
      await frontEnd.stopAccepting();
      await grpc?.stopAccepting();
      const drained = await withTimeout(
        Promise.all(
          registry.all().flatMap((e) => [...e.versions.values()].map((v) => v.scheduler.stop())),
        ),
        timeoutMs,
      );
      if (drained) {
        await models.close();
        logger.info('drain finished: every in-flight request completed');
      } else {
        // Runs still inside ORT cannot be stopped safely (terminating their threads aborts the
        // process); the caller exits the process instead.
        logger.warn('drain timed out: exiting with requests still in flight');
      }
      await frontEnd.close();
      grpc?.close();
      await metricsServer?.close();
      return drained;
    })();
    return shutdownPromise;
  };

  return {
    httpPort,
    metricsPort: metricsServer?.port,
    grpcPort: grpc?.port,
    frontEnd: frontEnd.kind,
    registry,
    models,
    dataPlane,
    metrics,
    websocket,
    shutdown,
  };
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
