// The transport-agnostic data plane over the model registry: health, metadata, config, statistics
// and inference (the `DataPlane` of data-plane-api.ts). HTTP and WebSocket handlers decode bytes,
// call this, and encode what it returns; nothing here knows about uWebSockets.js, HTTP status codes
// or wire encodings. Inference is resolved and admitted here, then run by one-shot-infer.ts or,
// for a decoupled model, decoupled-infer.ts.

import type { RequestRecorder } from './request-recorder.js';
import type { ShadowRunner } from './shadow-runner.js';
import type { CachedResponse } from '../cache/cached-response.js';
import type { ReplyReplay, WireRequest } from '../cache/reply-replay.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { toConfigJson } from '../config/config-json.js';
import { fail, InferenceServerError } from '../errors.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { LoadOverride } from '../repository/model-manager.js';
import type { ModelRegistry } from '../repository/model-registry.js';
import type { ModelVersion } from '../repository/model-version.js';
import { fullDims } from '../repository/model-signature.js';
import type {
  DataPlane,
  InferContext,
  ModelConfigJson,
  ModelLoadRequest,
  ModelMetadata,
  ModelUnloadRequest,
  ModelStatisticsResponse,
  RepositoryIndexEntry,
  ServerMetadata,
  TensorMetadata,
} from './data-plane-api.js';
import { inferDecoupled } from './decoupled-infer.js';
import { inferOneShot } from './one-shot-infer.js';
import { maxQueueSize, replayLookup, type ReplayLookup } from './replay-infer.js';
import { answerTraceSetting, inferTraced } from './request-tracing.js';
import type { RequestSpan } from '../trace/request-span.js';
import type { RequestTracer } from '../trace/request-tracer.js';
import type { TraceSettingsJson, TraceUpdate } from '../trace/trace-settings.js';
import type { RegionRegistry } from '../shared-memory/region-registry.js';
import type { Admission, TenantGate } from '../tenant/tenant-gate.js';
import {
  answerSharedMemory,
  type SharedMemoryAnswer,
  type SharedMemoryCall,
} from '../shared-memory/shm-calls.js';

export const SERVER_NAME = 'infernode';

/** Triton extensions this server implements (reported by `GET /v2`). */
export const EXTENSIONS = Object.freeze([
  'model_configuration',
  'binary_tensor_data',
  'statistics',
  'schedule_policy',
  'parameters',
  'model_repository',
  'model_repository(unload_dependents)',
  'sequence',
  // Served; registering needs --allow-client-shm=true, as in Triton. No CUDA: its endpoints answer
  // as a Triton built without GPU support.
  'system_shared_memory',
  // OpenTelemetry mode only (--trace-config): /v2/trace/setting and gRPC TraceSetting.
  'trace',
  // GET/POST /v2/logging and gRPC LogSettings (logging/).
  'logging',
]);

export interface DataPlaneOptions {
  readonly version: string;
  /** --strict-readiness: server ready only when every model is ready. */
  readonly strictReadiness: boolean;
  /** --server-name: what server metadata reports (default SERVER_NAME). */
  readonly serverName?: string;
  /** --http-max-input-size, also the cap on one request's tensor bytes in shared memory. */
  readonly maxInputBytes: number;
  /** Client shared-memory registrations (--allow-client-shm=true); absent: the extension is off. */
  readonly sharedMemory?: RegionRegistry;
  /**
   * The response cache (--cache-config), one for the process: models with
   * `response_cache { enable: true }` are answered from it. Absent: no model can enable it.
   */
  readonly responseCache?: ResponseCache<CachedResponse>;
  /**
   * With a local response cache: replies replayed for requests that repeat an earlier one's bytes
   * (cache/reply-replay.ts), in the same store and budget. Absent: every request is decoded.
   */
  readonly replies?: ReplyReplay;
  /** --record-requests: writes a sampled share of answered requests to disk; absent: off. */
  readonly recorder?: RequestRecorder;
  /** Shadow versions (config/shadow-policy.ts): sampled re-runs after the answer; absent: none. */
  readonly shadows?: ShadowRunner;
  /** Triton's trace extension (--trace-config): which requests get spans; absent: none, no API. */
  readonly tracer?: RequestTracer;
  /**
   * --tenant-header: requests that carry a tenant (InferContext.tenant) are admitted by it before
   * they are validated and queued. Absent: no tenant logic runs.
   */
  readonly tenants?: TenantGate;
}

/** The model manager as the data plane uses it (repository/model-manager.ts implements it). */
export interface ModelControl {
  index(readyOnly: boolean): Promise<RepositoryIndexEntry[]>;
  load(name: string, override: LoadOverride): Promise<void>;
  unload(name: string, options?: { readonly unloadDependents?: boolean }): Promise<void>;
}

export class RegistryDataPlane implements DataPlane {
  /** Set by beginDrain: not ready, no loads or unloads; inference is still served. */
  private draining = false;

  constructor(
    private readonly registry: ModelRegistry,
    private readonly models: ModelControl,
    private readonly options: DataPlaneOptions,
  ) {}

  /**
   * The drain has begun (SIGTERM): from now on the server and its models report not ready, so
   * balancers stop routing here, and loads and unloads are refused. Inference is still served:
   * requests on connections already open finish the drain (the schedulers refuse them only when
   * the drain ends or is cut short).
   */
  beginDrain(): void {
    this.draining = true;
  }

  live(): boolean {
    return true;
  }

  ready(): boolean {
    if (this.draining) return false;
    if (this.options.strictReadiness) return this.registry.allReady();
    return this.registry.all().some((e) => e.state === 'READY') || this.registry.all().length === 0;
  }

  serverMetadata(): ServerMetadata {
    return {
      name: this.options.serverName ?? SERVER_NAME,
      version: this.options.version,
      extensions: EXTENSIONS,
    };
  }

  modelReady(name: string, version: string | undefined): boolean {
    if (this.draining) return false;
    try {
      return this.registry.resolve(name, version).ready();
    } catch (e) {
      if (e instanceof InferenceServerError && e.code === 'MODEL_NOT_READY') return false;
      throw e;
    }
  }

  modelMetadata(name: string, version: string | undefined): ModelMetadata {
    const mv = this.registry.resolve(name, version);
    const sig = mv.signature;
    const entry = this.registry.entry(name);
    const tensors = (m: typeof sig.inputs): TensorMetadata[] =>
      [...m.values()].map((t) => ({
        name: t.name,
        datatype: t.datatype,
        shape: fullDims(sig, t),
      }));
    return {
      name: sig.name,
      versions: entry === undefined ? [String(mv.version)] : [...entry.versions.keys()].map(String),
      platform: sig.platform,
      inputs: tensors(sig.inputs),
      outputs: tensors(sig.outputs),
    };
  }

  modelConfig(name: string, version: string | undefined): ModelConfigJson {
    return toConfigJson(this.registry.resolve(name, version).config);
  }

  /** Triton's statistics extension: all models, one model, or one version. */
  modelStats(name: string | undefined, version: string | undefined): ModelStatisticsResponse {
    let versions: ModelVersion[];
    if (name === undefined) {
      versions = this.registry.all().flatMap((e) => [...e.versions.values()]);
    } else if (version === undefined || version === '') {
      const entry = this.registry.entry(name);
      if (entry === undefined) {
        throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${name}' is not found`);
      }
      versions = [...entry.versions.values()];
    } else {
      versions = [this.registry.resolve(name, version)];
    }
    return { model_stats: versions.map((v) => v.reporter.stats.toJson()) };
  }

  /** Triton's repository index: every model with its state and reason. */
  repositoryIndex(readyOnly: boolean): Promise<RepositoryIndexEntry[]> {
    return this.models.index(readyOnly);
  }

  loadModel(name: string, request: ModelLoadRequest): Promise<void> {
    if (this.draining) return Promise.reject(fail('SHUTTING_DOWN', 'the server is shutting down'));
    return this.models.load(name, {
      files: request.files,
      ...(request.config !== undefined ? { configJson: request.config } : {}),
    });
  }

  /** `unloadDependents` also unloads the ensembles whose steps name the model. */
  unloadModel(name: string, request: ModelUnloadRequest): Promise<void> {
    if (this.draining) return Promise.reject(fail('SHUTTING_DOWN', 'the server is shutting down'));
    return this.models.unload(name, { unloadDependents: request.unloadDependents });
  }

  sharedMemory(call: SharedMemoryCall): SharedMemoryAnswer {
    return answerSharedMemory(this.options.sharedMemory, call);
  }

  traceSetting(model: string | undefined, update: TraceUpdate | undefined): TraceSettingsJson {
    return answerTraceSetting(this.options.tracer, this.registry, model, update);
  }

  get replays(): boolean {
    return this.options.replies !== undefined;
  }

  /**
   * Reply replay for a request as it arrived (`request`: its framing and bytes): a stored reply,
   * counted as a cache hit; or the miss to hand to `infer` in `ctx.replay`. Undefined when the
   * request is not replayable (no local cache, a model without the cache, tracing on, an unknown
   * model: `infer` then answers it, errors included).
   */
  replay(
    name: string,
    version: string | undefined,
    request: WireRequest,
    ctx: InferContext,
  ): ReplayLookup | undefined {
    const replies = this.options.replies;
    if (replies === undefined || ctx.trace !== undefined || this.options.tracer?.tracing === true) {
      return undefined;
    }
    const mv = this.resolveOrUndefined(name, version);
    if (mv === undefined) return undefined;
    return replayLookup(replies, mv, request, ctx, this.options.tenants);
  }

  /**
   * Tenant quotas before the body is decoded (the HTTP route on the main thread). A model that does
   * not resolve is left to `infer`, so that it answers exactly as without this step.
   */
  admitTenant(name: string, version: string | undefined, tenant: string): Admission | undefined {
    const gate = this.options.tenants;
    if (gate === undefined) return undefined;
    const mv = this.resolveOrUndefined(name, version);
    if (mv === undefined) return undefined;
    return gate.admit(tenant, mv.name, maxQueueSize(mv));
  }

  private resolveOrUndefined(name: string, version: string | undefined): ModelVersion | undefined {
    try {
      return this.registry.resolve(name, version);
    } catch {
      return undefined;
    }
  }

  infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse> {
    let mv: ModelVersion;
    let span: RequestSpan | undefined;
    // Admitted already when the transport called admitTenant; released below however this ends.
    let admission: Admission | undefined = ctx.admission;
    try {
      mv = this.registry.resolve(name, version);
      // Tenant quotas, before anything is spent on the request: a refusal holds nothing.
      const gate = this.options.tenants;
      if (admission === undefined && gate !== undefined && ctx.tenant !== undefined) {
        admission = gate.admit(ctx.tenant, mv.name, maxQueueSize(mv));
      }
      // Sampled for export (trace settings): the span ends with the request's stage stamps.
      span = this.options.tracer?.begin(
        mv.name,
        mv.version,
        ctx.arrivalNs,
        ctx.traceparent,
        ctx.parentSpan,
      );
      if (span !== undefined && admission !== undefined) span.setTenant(admission.tag.name);
    } catch (e) {
      admission?.release();
      return Promise.reject(e);
    }
    const answer =
      span === undefined
        ? this.answer(mv, request, ctx, admission)
        : inferTraced(span, request, ctx, (traced) => this.answer(mv, request, traced, admission));
    if (admission === undefined) return answer;
    // Answered however it ends (an error, a cancel, a queue timeout, the shutdown's refusal): the
    // tenant's in-flight counts drop here and nowhere else.
    const held = admission;
    return answer.finally(() => held.release());
  }

  /** One request on its model: a decoupled model's responses stream, the others answer once. */
  private answer(
    mv: ModelVersion,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
    admission: Admission | undefined,
  ): Promise<InferenceResponse> {
    return mv.signature.decoupled === true
      ? inferDecoupled(this.options, mv, request, ctx, admission)
      : inferOneShot(this.options, mv, request, ctx, admission);
  }
}
