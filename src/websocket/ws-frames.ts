// The WebSocket frames in encoding-neutral form, and the codec interface each encoding (msgpack,
// FlatBuffers) implements. A decoded infer frame carries a `DecodedRequest`, the same type the HTTP
// codecs produce, so validation and scheduling are shared with HTTP; the repository frames carry the
// data plane's load and unload requests, as HTTP's and gRPC's decoders produce them.

import type {
  ModelLoadRequest,
  ModelUnloadRequest,
  RepositoryIndexEntry,
} from '../dataplane/data-plane-api.js';
import type { InferenceServerError, WireError } from '../errors.js';
import type { SharedMemoryCall } from '../shared-memory/shm-calls.js';
import type { RegionStatus } from '../shared-memory/shm-region.js';
import type { DecodedRequest, InferenceResponse } from '../protocol/inference-request.js';
import type { FrameId } from './frame-id.js';

export interface InferFrame {
  readonly kind: 'infer';
  readonly id: FrameId;
  readonly model: string;
  /** Digits, or absent for the model's default version policy. */
  readonly version?: string;
  readonly request: DecodedRequest;
  /** The frame's W3C `traceparent` (msgpack frames), unparsed; a malformed one is ignored. */
  readonly traceparent?: string;
}

/** Asks the server to drop request `id` (queued: it never runs; running: its result is dropped). */
export interface CancelFrame {
  readonly kind: 'cancel';
  readonly id: FrameId;
}

/** `POST /v2/repository/index` as a frame. */
export interface RepositoryIndexFrame {
  readonly kind: 'repository_index';
  readonly id: FrameId;
  readonly readyOnly: boolean;
}

/** `POST /v2/repository/models/{model}/load` as a frame; the model name is whitelisted. */
export interface ModelLoadFrame {
  readonly kind: 'model_load';
  readonly id: FrameId;
  readonly model: string;
  readonly request: ModelLoadRequest;
}

/** `POST /v2/repository/models/{model}/unload`; the name is not whitelisted (it is only looked up). */
export interface ModelUnloadFrame {
  readonly kind: 'model_unload';
  readonly id: FrameId;
  readonly model: string;
  readonly request: ModelUnloadRequest;
}

/** The repository API's frames. A load or unload cannot be cancelled: it runs to its answer. */
export type RepositoryFrame = RepositoryIndexFrame | ModelLoadFrame | ModelUnloadFrame;

/** The `type` each repository frame and its answer carry on the wire. */
export const REPOSITORY_FRAME_TYPES = Object.freeze([
  'repository_index',
  'model_load',
  'model_unload',
] as const satisfies readonly RepositoryFrame['kind'][]);

/** What a repository frame's success answer carries: the index rows, or nothing but its type. */
export type RepositoryAnswer =
  | { readonly kind: 'repository_index'; readonly models: readonly RepositoryIndexEntry[] }
  | { readonly kind: 'model_load' | 'model_unload' };

/**
 * Triton's system shared-memory management calls as frames (`POST /v2/systemsharedmemory/...` and
 * `GET .../status`): the call is the one the HTTP routes and gRPC handlers make on the data plane.
 * Like repository frames they run to their answer and cannot be cancelled.
 */
export interface SharedMemoryFrame {
  readonly kind: SharedMemoryFrameType;
  readonly id: FrameId;
  readonly call: SharedMemoryCall;
}

/** The `type` each shared-memory frame and its answer carry on the wire. */
export const SHARED_MEMORY_FRAME_TYPES = Object.freeze([
  'shm_register',
  'shm_unregister',
  'shm_status',
] as const);
export type SharedMemoryFrameType = (typeof SHARED_MEMORY_FRAME_TYPES)[number];

/** A shared-memory frame's success answer: the status rows, or nothing but its type. */
export type SharedMemoryAnswerFrame =
  | { readonly kind: 'shm_status'; readonly regions: readonly RegionStatus[] }
  | { readonly kind: 'shm_register' | 'shm_unregister' };

export type ClientFrame = InferFrame | CancelFrame | RepositoryFrame | SharedMemoryFrame;

export type DecodeResult =
  | { readonly ok: true; readonly frame: ClientFrame }
  /**
   * A frame that cannot be run, answered with an error frame: under its id when it had a usable
   * one, under a nil id (`null`) when it is a well-formed map or table whose id is absent or
   * unusable (BAD_ID). The socket stays open.
   */
  | {
      readonly ok: false;
      readonly close: false;
      readonly id: FrameId | null;
      readonly error: InferenceServerError;
    }
  /** Not a frame at all (not a map, truncated, too deep...) and no usable id: closed with 1007. */
  | { readonly ok: false; readonly close: true; readonly error: InferenceServerError };

export interface FrameCodec {
  /** The subprotocol name that selects this codec. */
  readonly protocol: string;
  /**
   * Decodes one binary message. Runs synchronously and never throws. With `volatile` (uWS) the
   * message memory dies when the caller returns, so each tensor payload is copied once into its
   * own buffer; otherwise payloads stay views of `bytes`.
   */
  decode(bytes: Uint8Array, volatile: boolean): DecodeResult;
  /** A success frame: the outputs' bytes are copied into the frame as they are, no per-element work. */
  encodeResponse(id: FrameId, response: InferenceResponse): Uint8Array;
  /** A repository frame's success answer. */
  encodeRepositoryAnswer(id: FrameId, answer: RepositoryAnswer): Uint8Array;
  /**
   * A shared-memory frame's success answer. Absent: the encoding has no shared-memory frames (its
   * decoder never produces one), as FlatBuffers for now.
   */
  readonly encodeSharedMemoryAnswer?: (id: FrameId, answer: SharedMemoryAnswerFrame) => Uint8Array;
  /**
   * An error frame; `null`: the refused frame had no usable id, so the answer carries none.
   * `final: false` marks one failed response of a decoupled request, which goes on.
   */
  encodeError(id: FrameId | null, error: WireError, final?: boolean): Uint8Array;
  /**
   * The codec can carry a decoupled model's responses (the `final` flag); both encodings do. A
   * codec without it would have a decoupled model refused over it.
   */
  readonly streams: boolean;
}
