// The data plane as the transports see it: the `DataPlane` interface the HTTP routes and the
// WebSocket sessions call, and the typed results they encode. `data-plane.ts` implements it over the
// model registry; tests implement it with a fake that stands in for model execution.

import type { ReplayMiss, WireRequest } from '../cache/reply-replay.js';
import type { AbortLike } from '../execution/abort-like.js';
import type { InferenceServerError } from '../errors.js';
import type { ModelStatistics } from '../metrics/model-stats.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { ModelState } from '../repository/model-version.js';
import type { Datatype } from '../tensor/datatypes.js';
import type { RequestSpan } from '../trace/request-span.js';
import type { StageTrace } from '../trace/stage-trace.js';
import type { TraceSettingsJson, TraceUpdate } from '../trace/trace-settings.js';
import type { Admission } from '../tenant/tenant-gate.js';
import type { SharedMemoryAnswer, SharedMemoryCall } from '../shared-memory/shm-calls.js';
import type { ReplayLookup } from './replay-infer.js';

export interface InferContext {
  readonly signal: AbortLike;
  /** process.hrtime.bigint() as a number when the request arrived. */
  readonly arrivalNs: number;
  /**
   * Set by a transport that can stream (WebSocket, BLS `inferStream`): a decoupled model's responses
   * go here as they are sent, each an InferenceResponse or an InferenceServerError, and `infer`
   * resolves with the final flag alone (no outputs, parameter `triton_final_response: true`).
   * Without it, a decoupled model is refused with DECOUPLED_UNSUPPORTED. Other models ignore it.
   */
  readonly responses?: (response: InferenceResponse | InferenceServerError) => void;
  /** Set when the server traces stages (--trace-stages): the data plane and scheduler stamp it. */
  readonly trace?: StageTrace;
  /** The client's W3C `traceparent` (HTTP header, gRPC metadata, WebSocket frame field), unparsed. */
  readonly traceparent?: string;
  /** Set on an ensemble step or BLS call of a traced request: its span is this one's parent. */
  readonly parentSpan?: RequestSpan;
  /**
   * --tenant-header: the header's value ('' when the request has none), which the data plane admits
   * against the tenant quotas. Absent (no flag, or a BLS call or ensemble step): no tenant logic.
   */
  readonly tenant?: string;
  /**
   * Reply replay's miss for this request (DataPlane.replay): marked when the answer is one the
   * response cache holds, so the transport stores its encoded reply.
   */
  readonly replay?: ReplayMiss;
  /**
   * The tenant's admission when the transport took it before decoding the body (`admitTenant`):
   * `infer` does not admit again, and releases this one however the request ends.
   */
  readonly admission?: Admission;
}

/** `GET /v2`: the server's name, version and the protocol extensions it implements. */
export interface ServerMetadata {
  readonly name: string;
  readonly version: string;
  readonly extensions: readonly string[];
}

/** One input or output in model metadata; `shape` includes the batch dimension as -1. */
export interface TensorMetadata {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
}

/** `GET /v2/models/{m}[/versions/{v}]`. */
export interface ModelMetadata {
  readonly name: string;
  /** Every loaded version of the model, not only the one asked for. */
  readonly versions: readonly string[];
  readonly platform: string;
  readonly inputs: readonly TensorMetadata[];
  readonly outputs: readonly TensorMetadata[];
}

export type JsonValue =
  string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** `GET /v2/models/{m}/config`: protobuf's JSON mapping of the model's ModelConfig. */
export type ModelConfigJson = { readonly [key: string]: JsonValue };

/** `GET /v2/models[/{m}[/versions/{v}]]/stats`: Triton's statistics extension. */
export interface ModelStatisticsResponse {
  readonly model_stats: readonly ModelStatistics[];
}

/**
 * `POST /v2/repository/index`: one row per model version (one per model that has none). A model in
 * the repository that was never loaded has a name only, as in Triton.
 */
export interface RepositoryIndexEntry {
  readonly name: string;
  /** Absent for a model without a known version. */
  readonly version?: string;
  /** Absent for a model that was never loaded. */
  readonly state?: ModelState;
  /** Why the model or version is UNAVAILABLE (`unloaded` after an unload); '' otherwise. */
  readonly reason?: string;
}

/**
 * `POST /v2/repository/models/{m}/load`: Triton's load parameters, decoded by the transport. Loading
 * a model that is loaded reloads it.
 */
export interface ModelLoadRequest {
  /** `parameters.config`: the JSON text of a ModelConfig, used instead of config.pbtxt. */
  readonly config?: string;
  /**
   * `parameters."file:<version>/<name>"`: model files (already base64-decoded), keyed by the path
   * after `file:`, e.g. `1/model.onnx`. Written to a private directory; needs `config`.
   */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** `POST /v2/repository/models/{m}/unload`. */
export interface ModelUnloadRequest {
  /** Also unload the models that depend on this one (ensembles). */
  readonly unloadDependents: boolean;
}

/** A value now, or one that arrives later (answered from another thread). */
export type Awaitable<T> = T | Promise<T>;

/**
 * The data plane as a transport sees it: every call may be answered later. The HTTP routes take
 * this, so that a front-end thread can serve them with a plane whose answers come from the main
 * thread (src/cluster/remote-data-plane.ts); the real `DataPlane` below is one, answering at once.
 */
export interface DataPlanePort {
  live(): Awaitable<boolean>;
  ready(): Awaitable<boolean>;
  serverMetadata(): Awaitable<ServerMetadata>;
  modelReady(name: string, version: string | undefined): Awaitable<boolean>;
  modelMetadata(name: string, version: string | undefined): Awaitable<ModelMetadata>;
  modelConfig(name: string, version: string | undefined): Awaitable<ModelConfigJson>;
  modelStats(
    name: string | undefined,
    version: string | undefined,
  ): Awaitable<ModelStatisticsResponse>;
  repositoryIndex(readyOnly: boolean): Promise<RepositoryIndexEntry[]>;
  loadModel(name: string, request: ModelLoadRequest): Promise<void>;
  unloadModel(name: string, request: ModelUnloadRequest): Promise<void>;
  /** Triton's shared-memory extension: register, unregister and status of regions. */
  sharedMemory(call: SharedMemoryCall): Awaitable<SharedMemoryAnswer>;
  /**
   * Triton's trace extension: the server's (`model` undefined) or a model's trace settings, after
   * applying `update` when there is one (a POST).
   */
  traceSetting(
    model: string | undefined,
    update: TraceUpdate | undefined,
  ): Awaitable<TraceSettingsJson>;
  /**
   * Admits `tenant` for the model before its request body is decoded, so that a refusal costs the
   * headers only; the caller hands the admission to `infer` (InferContext.admission), or releases it
   * when the body fails to decode. Throws the tenant refusal, counted as `infer` counts it. Undefined
   * when there is nothing to admit here (no quotas) or the model does not resolve: `infer` then
   * answers as without this step (an unknown model is MODEL_NOT_FOUND whatever the quota). Absent
   * where the quotas live on another thread (src/cluster/remote-data-plane.ts): `infer` admits.
   */
  admitTenant?(name: string, version: string | undefined, tenant: string): Admission | undefined;
  infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse>;
  /** True when `replay` can answer (a local response cache): else a transport need not ask. */
  readonly replays?: boolean;
  /**
   * Reply replay (cache/reply-replay.ts), where the data plane is on this thread: a transport that
   * has a request's bytes asks before decoding them. Absent on a front-end thread's data plane.
   */
  replay?(
    name: string,
    version: string | undefined,
    request: WireRequest,
    ctx: InferContext,
  ): ReplayLookup | undefined;
}

/**
 * Health, metadata, config, statistics, the repository API and inference, with no knowledge of
 * HTTP or WebSocket. Unknown models and versions throw catalogued errors (MODEL_NOT_FOUND, ...).
 */
export interface DataPlane extends DataPlanePort {
  live(): boolean;
  ready(): boolean;
  serverMetadata(): ServerMetadata;
  /** False (never a throw) for a model that exists but is not ready, or while shutting down. */
  modelReady(name: string, version: string | undefined): boolean;
  modelMetadata(name: string, version: string | undefined): ModelMetadata;
  modelConfig(name: string, version: string | undefined): ModelConfigJson;
  /** All models (`name` undefined), one model, or one version. */
  modelStats(name: string | undefined, version: string | undefined): ModelStatisticsResponse;
  /** Every model the repositories hold or the server has loaded; `readyOnly` keeps READY rows. */
  repositoryIndex(readyOnly: boolean): Promise<RepositoryIndexEntry[]>;
  /**
   * Loads or reloads a model; resolves once it is READY, rejects with the reason it is not
   * (MODEL_CONTROL_DISABLED outside --model-control-mode=explicit).
   */
  loadModel(name: string, request: ModelLoadRequest): Promise<void>;
  /** Unloads a model: new requests are refused at once, accepted ones finish; resolves after. */
  unloadModel(name: string, request: ModelUnloadRequest): Promise<void>;
  /** Refused with SHM_DISABLED under --allow-client-shm=false. */
  sharedMemory(call: SharedMemoryCall): SharedMemoryAnswer;
  /** MODEL_NOT_FOUND for a model the server does not know. */
  traceSetting(model: string | undefined, update: TraceUpdate | undefined): TraceSettingsJson;
  /** Validates, schedules and runs one request; a raw binary request is resolved by validation. */
  infer(
    name: string,
    version: string | undefined,
    request: DecodedRequest | RawBinaryRequest,
    ctx: InferContext,
  ): Promise<InferenceResponse>;
}
