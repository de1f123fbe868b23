// The gRPC front end: a grpc-js server carrying GRPCInferenceService and grpc.health.v1.Health on
// --grpc-address:--grpc-port, with Triton's keepalive, compression and message-size settings.
// `server.ts` starts it beside the HTTP front end and stops it with it on shutdown.

import type { LogSettingsPort } from '../logging/log-settings.js';
import { Server, ServerCredentials, type ChannelOptions } from '@grpc/grpc-js';
import type * as http2 from 'node:http2';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import type { InferenceServerError } from '../errors.js';
import type { MemoryBudget } from '../memory/client-budget.js';
import { healthService, inferenceService } from './inference-service.js';
import { tritonServices } from './grpc-protos.js';
import { restrictionsByRpc, type Restriction } from './restricted-protocol.js';
import {
  disableNagle,
  listenReusingPort,
  onHttp2Server,
  routeStreams,
  STREAM_WINDOW_BYTES,
  widenReceiveWindows,
} from './http2-server-hook.js';
import { STREAM_MAX_INFLIGHT, STREAM_MAX_UNSENT_BYTES } from './stream-session.js';
import { MODEL_STREAM_INFER_PATH, serveStreamInfer } from './stream-infer.js';
import { MODEL_INFER_PATH, serveUnaryInfer, takesDirectPath } from './unary-infer.js';

/**
 * --grpc-infer-response-compression-level, accepted as Triton spells it. It has no effect: grpc-js's
 * server compresses no message (docs/grpc.md), so neither path compresses answers.
 */
export type CompressionLevel = 'none' | 'low' | 'med' | 'high';

export interface GrpcServerOptions {
  readonly address: string;
  readonly port: number;
  readonly compressionLevel: CompressionLevel;
  readonly keepaliveTimeMs: number;
  readonly keepaliveTimeoutMs: number;
  /** Largest request message in bytes; larger ones fail with RESOURCE_EXHAUSTED. */
  readonly maxReceiveBytes: number;
  readonly restrictions: readonly Restriction[];
  /** The process's client-memory budget: each ModelStreamInfer stream reserves from it. */
  readonly budget: MemoryBudget;
  /** Streams one HTTP/2 connection may have open (SETTINGS_MAX_CONCURRENT_STREAMS). */
  readonly maxConcurrentStreams: number;
  readonly onServerError?: (err: InferenceServerError, rpc: string, tenant?: string) => void;
  /** The logging extension (LogSettings); absent, LogSettings answers UNIMPLEMENTED. */
  readonly logging?: LogSettingsPort;
  /** --reuse-grpc-port: listen with SO_REUSEPORT (Node 22.12 and later; see listenReusingPort). */
  readonly reusePort?: boolean;
  /** --tenant-header, lower-case: the metadata key each call's tenant is read from. */
  readonly tenantHeader?: string;
}

export interface GrpcFrontEnd {
  readonly port: number;
  /**
   * Refuses new calls; calls under way continue, and open ModelStreamInfer streams end once their
   * requests in flight are answered. Resolves when every call has finished.
   */
  stopAccepting(): Promise<void>;
  /** Ends every call still open and closes the listener. */
  close(): void;
}

export async function startGrpcServer(
  plane: DataPlane,
  options: GrpcServerOptions,
): Promise<GrpcFrontEnd> {
  const channelOptions: ChannelOptions = {
    'grpc.keepalive_time_ms': options.keepaliveTimeMs,
    'grpc.keepalive_timeout_ms': options.keepaliveTimeoutMs,
    'grpc.max_receive_message_length': options.maxReceiveBytes,
    'grpc.max_send_message_length': -1,
    // channelz bookkeeping (call counters and timestamps per call) costs every call; nothing here
    // exposes channelz.
    'grpc.enable_channelz': 0,
    // Every stream may hold a window of request data and its unsent answers: a connection may not
    // open streams without end (grpc-js sends it as SETTINGS_MAX_CONCURRENT_STREAMS; a client
    // waits for a slot, and a stream over it is refused with REFUSED_STREAM).
    'grpc.max_concurrent_streams': options.maxConcurrentStreams,
  };
  const server = new Server(channelOptions);
  const services = tritonServices();
  const restricted = restrictionsByRpc(options.restrictions);
  const draining = new AbortController();
  // Plain ModelInfer and ModelStreamInfer calls skip grpc-js (unary-infer.ts, stream-infer.ts);
  // with a restriction on inference every call goes through grpc-js, which checks it. Answers are
  // never compressed on either path: grpc-js's server compresses nothing (its serializeMessage
  // always writes flag 0).
  const direct = !restricted.has('ModelInfer') && !restricted.has('ModelStreamInfer');
  const onServerError =
    options.onServerError !== undefined ? { onServerError: options.onServerError } : {};
  // --tenant-header: a call's tenant is the metadata's first value, '' without one.
  const tenantHeader = options.tenantHeader;
  const tenantOf = (headers: http2.IncomingHttpHeaders): string | undefined => {
    if (tenantHeader === undefined) return undefined;
    const v = headers[tenantHeader];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  const unary = {
    maxReceiveBytes: options.maxReceiveBytes,
    budget: options.budget,
    ...onServerError,
  };
  const streamed = {
    maxReceiveBytes: options.maxReceiveBytes,
    maxInflight: STREAM_MAX_INFLIGHT,
    maxUnsentBytes: STREAM_MAX_UNSENT_BYTES,
    budget: options.budget,
    windowBytes: STREAM_WINDOW_BYTES,
    draining: draining.signal,
    ...onServerError,
  };
  onHttp2Server(server, (h2) => {
    disableNagle(h2);
    widenReceiveWindows(h2);
    if (options.reusePort === true) listenReusingPort(h2);
    if (!direct) return;
    routeStreams(h2, (stream, headers) => {
      const path = headers[':path'];
      if (path === MODEL_INFER_PATH) {
        if (!takesDirectPath(headers)) return false;
        serveUnaryInfer(plane, stream, unary, headers['traceparent'], tenantOf(headers));
        return true;
      }
      if (path === MODEL_STREAM_INFER_PATH) {
        if (!takesDirectPath(headers)) return false;
        const traceparent = headers['traceparent'];
        const tenant = tenantOf(headers);
        serveStreamInfer(plane, stream, {
          ...streamed,
          ...(typeof traceparent === 'string' && { traceparent }),
          ...(tenant !== undefined && { tenant }),
        });
        return true;
      }
      return false;
    });
  });
  server.addService(
    services.inference,
    inferenceService(plane, {
      restricted,
      budget: options.budget,
      windowBytes: STREAM_WINDOW_BYTES,
      draining: draining.signal,
      ...(options.onServerError !== undefined ? { onServerError: options.onServerError } : {}),
      ...(options.logging !== undefined && { logging: options.logging }),
      ...(tenantHeader !== undefined && { tenantHeader }),
    }),
  );
  server.addService(services.health, healthService(plane, restricted));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${hostPart(options.address)}:${options.port}`,
      ServerCredentials.createInsecure(),
      (err, bound) => (err === null ? resolve(bound) : reject(err)),
    );
  });
  let stopped: Promise<void> | undefined;
  return {
    port,
    // tryShutdown closes the listener and sends GOAWAY at once; calls under way continue, and its
    // callback runs when every one has finished. The server's exit timeout bounds that wait.
    stopAccepting: () => {
      stopped ??= new Promise((resolve) => {
        draining.abort();
        server.tryShutdown(() => resolve());
      });
      return stopped;
    },
    close: () => server.forceShutdown(),
  };
}

/** IPv6 literals go in brackets in a grpc-js address. */
function hostPart(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}
