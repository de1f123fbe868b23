// The handlers of `inference.GRPCInferenceService` and `grpc.health.v1.Health`: each decodes its
// message, calls the data plane and encodes the answer. Nothing here validates or schedules.

import {
  status,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { toServerError, type InferenceServerError } from '../errors.js';
import { secretMatches } from '../protocol/restricted-features.js';
import { assertValidModelName } from '../repository/model-name.js';
import { parseTraceUpdate } from '../trace/trace-settings.js';
import {
  decodeInferRequest,
  encodeInferResponse,
  versionOf,
  type ModelInferRequest,
} from './infer-codec.js';
import { toServiceError } from './grpc-status.js';
import type { MemoryBudget } from '../memory/client-budget.js';
import { serveModelStream } from './model-stream.js';
import {
  STREAM_MAX_INFLIGHT,
  STREAM_MAX_UNSENT_BYTES,
  type ModelStreamInferResponse,
} from './stream-session.js';
import type { Restriction } from './restricted-protocol.js';
import type { LogSettingsPort } from '../logging/log-settings.js';
import {
  decodeLogSettingsGrpc,
  logSettingsGrpc,
  type GrpcSettingValue,
} from '../logging/log-settings.js';
import { sharedMemoryHandlers } from './shm-service.js';
import {
  decodeIndexRequest,
  decodeLoadRequest,
  decodeUnloadRequest,
  type RepositoryControlRequest,
  type RepositoryIndexRequest,
} from './repository-codec.js';

export interface ServiceOptions {
  /** The client-memory budget ModelStreamInfer streams reserve from, and a stream's window. */
  readonly budget: MemoryBudget;
  readonly windowBytes: number;
  /** RPC name -> the header it requires (`--grpc-restricted-protocol`). */
  readonly restricted: ReadonlyMap<string, Restriction>;
  /** Called with 5xx-class errors other than UNAVAILABLE, for the log. */
  readonly onServerError?: (err: InferenceServerError, rpc: string, tenant?: string) => void;
  /** Aborted when the server stops taking calls: open streams end once they are answered. */
  readonly draining?: AbortSignal;
  /** The logging extension (LogSettings); absent, LogSettings answers UNIMPLEMENTED. */
  readonly logging?: LogSettingsPort;
  /** --tenant-header, lower-case: the metadata key each call's tenant is read from. */
  readonly tenantHeader?: string;
}

type Unary = (call: ServerUnaryCall<any, unknown>) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

interface ModelRef {
  readonly name: string;
  readonly version: string;
}

/** A transport-level refusal, not an inference error: it never reaches the catalog. */
class CallRefused extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

/** gRPC's TraceSettingRequest: each value a list of strings; an empty list clears the setting. */
interface TraceSettingRequest {
  readonly settings?: Readonly<Record<string, { readonly value?: readonly string[] }>>;
  readonly model_name?: string;
}

/** Triton's trace extension over gRPC: no settings reads them, settings update them. */
function traceSetting(plane: DataPlane, req: TraceSettingRequest): unknown {
  const model = req.model_name === undefined || req.model_name === '' ? undefined : req.model_name;
  if (model !== undefined) assertValidModelName(model);
  const entries = Object.entries(req.settings ?? {});
  const update =
    entries.length === 0
      ? undefined
      : parseTraceUpdate(Object.fromEntries(entries.map(([k, v]) => [k, [...(v.value ?? [])]])));
  const answer = plane.traceSetting(model, update);
  return {
    settings: Object.fromEntries(
      Object.entries(answer).map(([k, v]) => [k, { value: typeof v === 'string' ? [v] : v }]),
    ),
  };
}

function model(req: ModelRef): [string, string | undefined] {
  assertValidModelName(req.name);
  return [req.name, versionOf(req.version)];
}

export function inferenceService(
  plane: DataPlane,
  options: ServiceOptions,
): UntypedServiceImplementation {
  const tenantOf = (metadata: Tagged): string | undefined =>
    tenantOfMetadata(options.tenantHeader, metadata);
  const unary: Record<string, Unary> = {
    ServerLive: () => ({ live: plane.live() }),
    ServerReady: () => ({ ready: plane.ready() }),
    ModelReady: (call) => ({ ready: plane.modelReady(...model(call.request as ModelRef)) }),
    ServerMetadata: () => plane.serverMetadata(),
    ModelMetadata: (call) => plane.modelMetadata(...model(call.request as ModelRef)),
    ModelConfig: (call) => ({ config: plane.modelConfig(...model(call.request as ModelRef)) }),
    ModelStatistics: (call) => {
      const req = call.request as ModelRef;
      if (req.name === '') return plane.modelStats(undefined, undefined);
      return plane.modelStats(...model(req));
    },
    RepositoryIndex: async (call) => {
      const readyOnly = decodeIndexRequest(call.request as RepositoryIndexRequest);
      return { models: await plane.repositoryIndex(readyOnly) };
    },
    RepositoryModelLoad: async (call) => {
      const { name, request } = decodeLoadRequest(call.request as RepositoryControlRequest);
      await plane.loadModel(name, request);
      return {};
    },
    RepositoryModelUnload: async (call) => {
      const { name, request } = decodeUnloadRequest(call.request as RepositoryControlRequest);
      await plane.unloadModel(name, request);
      return {};
    },
    ModelInfer: async (call) => {
      const arrivalNs = Number(process.hrtime.bigint());
      const msg = call.request as ModelInferRequest;
      const request = decodeInferRequest(msg);
      const controller = new AbortController();
      // grpc-js emits 'cancelled' at the end of every call, answered or not: listen only while
      // the request is on its way, or each answered call would build an abort error for nothing.
      const onCancelled = (): void => controller.abort();
      call.on('cancelled', onCancelled);
      try {
        const [name, version] = model({ name: msg.model_name, version: msg.model_version });
        const traceparent = call.metadata.get('traceparent')[0];
        const tenant = tenantOf(call.metadata);
        const response = await plane.infer(name, version, request, {
          signal: controller.signal,
          arrivalNs,
          ...(typeof traceparent === 'string' && { traceparent }),
          ...(tenant !== undefined && { tenant }),
        });
        return encodeInferResponse(response);
      } finally {
        call.off('cancelled', onCancelled);
      }
    },
    TraceSetting: (call) => traceSetting(plane, call.request as TraceSettingRequest),
    LogSettings: async (call) => {
      const logging = options.logging;
      if (logging === undefined) return unimplemented('LogSettings', 'no log settings to serve');
      const { settings } = call.request as { settings: Record<string, GrpcSettingValue> };
      // An empty map reads the settings, as in Triton.
      const update = decodeLogSettingsGrpc(settings);
      const empty = Object.keys(settings).length === 0;
      return { settings: logSettingsGrpc(await logging.logSettings(empty ? undefined : update)) };
    },
  };
  Object.assign(unary, sharedMemoryHandlers(plane));

  const implementation: UntypedServiceImplementation = {};
  for (const [rpc, handler] of Object.entries(unary)) {
    implementation[rpc] = (call: ServerUnaryCall<unknown, unknown>, done: sendUnaryData<unknown>) =>
      void answer(rpc, call, handler, options, done);
  }
  implementation['ModelStreamInfer'] = (
    call: ServerDuplexStream<ModelInferRequest, ModelStreamInferResponse>,
  ) => {
    try {
      checkRestriction(
        'ModelStreamInfer',
        call.metadata.get.bind(call.metadata),
        options.restricted,
      );
    } catch (e) {
      const refused = e as CallRefused;
      call.emit('error', { code: refused.code, details: refused.message });
      return;
    }
    const traceparent = call.metadata.get('traceparent')[0];
    const tenant = tenantOf(call.metadata);
    serveModelStream(plane, call, {
      ...(typeof traceparent === 'string' && { traceparent }),
      ...(tenant !== undefined && { tenant }),
      maxInflight: STREAM_MAX_INFLIGHT,
      maxUnsentBytes: STREAM_MAX_UNSENT_BYTES,
      budget: options.budget,
      windowBytes: options.windowBytes,
      ...(options.draining !== undefined ? { draining: options.draining } : {}),
      ...(options.onServerError !== undefined ? { onServerError: options.onServerError } : {}),
    });
  };
  return implementation;
}

type Tagged = { get(key: string): unknown[] };

/** --tenant-header: a call's tenant is the metadata's first value, '' without one. */
function tenantOfMetadata(header: string | undefined, metadata: Tagged): string | undefined {
  if (header === undefined) return undefined;
  const v = metadata.get(header)[0];
  return typeof v === 'string' ? v : '';
}

async function answer(
  rpc: string,
  call: ServerUnaryCall<unknown, unknown>,
  handler: Unary,
  options: ServiceOptions,
  done: sendUnaryData<unknown>,
): Promise<void> {
  try {
    checkRestriction(rpc, call.metadata.get.bind(call.metadata), options.restricted);
    done(null, await handler(call));
  } catch (e) {
    if (e instanceof CallRefused) {
      done({ code: e.code, details: e.message });
      return;
    }
    const err = toServerError(e);
    if (err.status >= 500 && err.status !== 503) {
      options.onServerError?.(err, rpc, tenantOfMetadata(options.tenantHeader, call.metadata));
    }
    done(toServiceError(err));
  }
}

/** Triton's refusal of a restricted RPC called without its header (grpc_server.cc). */
export function checkRestriction(
  rpc: string,
  header: (name: string) => readonly (string | Buffer)[],
  restricted: ReadonlyMap<string, Restriction>,
): void {
  const r = restricted.get(rpc);
  if (r === undefined) return;
  if (!header(r.header).some((v) => secretMatches(String(v), r.value))) {
    throw new CallRefused(
      status.UNAVAILABLE,
      `This protocol is restricted, expecting header '${r.header}'`,
    );
  }
}

function unimplemented(rpc: string, why: string): never {
  throw new CallRefused(status.UNIMPLEMENTED, `${rpc} is not implemented by infernode: ${why}`);
}

/** `grpc.health.v1.Health`: SERVING while the server is ready, for Kubernetes gRPC probes. */
export function healthService(
  plane: DataPlane,
  restricted: ReadonlyMap<string, Restriction>,
): UntypedServiceImplementation {
  return {
    Check: (call: ServerUnaryCall<{ service: string }, unknown>, done: sendUnaryData<unknown>) => {
      try {
        checkRestriction('Check', call.metadata.get.bind(call.metadata), restricted);
      } catch (e) {
        const refused = e as CallRefused;
        done({ code: refused.code, details: refused.message });
        return;
      }
      const service = call.request.service;
      if (service !== '' && service !== 'inference.GRPCInferenceService') {
        done({ code: status.NOT_FOUND, details: `unknown service '${service.slice(0, 100)}'` });
        return;
      }
      done(null, { status: plane.ready() ? 'SERVING' : 'NOT_SERVING' });
    },
  };
}
