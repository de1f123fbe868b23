// The WebSocket frames in encoding-neutral form, and the codec interface each encoding (msgpack,
// FlatBuffers) implements. A decoded infer frame carries a `DecodedRequest`, the same type the HTTP
// codecs produce, so validation and scheduling are shared with HTTP.

import type { InferenceServerError, WireError } from '../errors.js';
import type { DecodedRequest, InferenceResponse } from '../protocol/inference-request.js';

/** A client-chosen request id, unique among the socket's requests in flight. */
export type FrameId = string | number;

export interface InferFrame {
  readonly kind: 'infer';
  readonly id: FrameId;
  readonly model: string;
  /** Digits, or absent for the model's default version policy. */
  readonly version?: string;
  readonly request: DecodedRequest;
}

/** Asks the server to drop request `id` (queued: it never runs; running: its result is dropped). */
export interface CancelFrame {
  readonly kind: 'cancel';
  readonly id: FrameId;
}

export type ClientFrame = InferFrame | CancelFrame;

export type DecodeResult =
  | { readonly ok: true; readonly frame: ClientFrame }
  /**
   * The frame is unusable. With an `id` the server answers with an error frame; without one it
   * cannot say which request failed and closes the socket (1007).
   */
  | { readonly ok: false; readonly id: FrameId | undefined; readonly error: InferenceServerError };

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
  encodeError(id: FrameId, error: WireError): Uint8Array;
}
