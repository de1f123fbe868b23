// One ModelStreamInfer call: many requests in flight at once on one bidirectional stream, each
// answered as it completes (its response carries its id), errors as `error_message` responses
// rather than a stream abort, and the stream's end cancelling what it still has queued.
//
// Flow control: the stream stops reading requests (grpc-js then stops reading HTTP/2 frames, so the
// client's window fills) while it holds `maxInflight` requests, or while grpc-js's writable side
// needs a drain. Known gap: Node's HTTP/2 stream completes writes before the peer's window opens,
// so answers to a client that never reads collect in the transport (see docs/grpc.md).

import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import { assertValidModelName } from '../repository/model-name.js';
import {
  decodeInferRequest,
  encodeInferResponse,
  versionOf,
  type ModelInferRequest,
  type ModelInferResponse,
} from './infer-codec.js';

/** `ModelStreamInferResponse`: an error carries the request's id and model in `infer_response`. */
export interface ModelStreamInferResponse {
  readonly error_message: string;
  readonly infer_response: ModelInferResponse | Partial<ModelInferResponse>;
}

export interface StreamOptions {
  /** Requests one stream holds (running, or answered and not yet written) before it stops reading. */
  readonly maxInflight: number;
  readonly onServerError?: (err: InferenceServerError, rpc: string) => void;
  /**
   * Aborted when the server stops taking calls: the stream is then treated as if the client had
   * ended it (requests still arriving are served), and it ends once nothing is in flight.
   */
  readonly draining?: AbortSignal;
}

export function serveModelStream(
  plane: DataPlane,
  call: ServerDuplexStream<ModelInferRequest, ModelStreamInferResponse>,
  options: StreamOptions,
): void {
  const controllers = new Set<AbortController>();
  let ended = false;
  let closed = false;

  const flow = (): void => {
    if (closed) return;
    const full = controllers.size >= options.maxInflight || call.writableNeedDrain;
    if (full) call.pause();
    else call.resume();
  };
  const finishIfDone = (): void => {
    if (ended && controllers.size === 0 && !closed) {
      closed = true;
      options.draining?.removeEventListener('abort', drain);
      call.end();
    }
  };
  const drain = (): void => {
    ended = true;
    finishIfDone();
  };
  const send = (message: ModelStreamInferResponse): void => {
    if (closed) return;
    call.write(message);
  };

  call.on('data', (msg: ModelInferRequest) => {
    if (closed) return;
    const arrivalNs = Number(process.hrtime.bigint());
    const controller = new AbortController();
    controllers.add(controller);
    flow();
    void run(plane, msg, controller.signal, arrivalNs, options).then((message) => {
      controllers.delete(controller);
      send(message);
      flow();
      finishIfDone();
    });
  });
  call.on('drain', flow);
  call.on('end', () => {
    ended = true;
    finishIfDone();
  });
  // The client cancelled or the connection went: queued requests leave their scheduler queues
  // without running; running ones finish and their results are dropped.
  const cancel = (): void => {
    if (closed) return;
    closed = true;
    options.draining?.removeEventListener('abort', drain);
    const reason = fail('CANCELLED', 'the stream closed before the response was sent');
    for (const c of controllers) c.abort(reason);
    controllers.clear();
  };
  call.on('cancelled', cancel);
  call.on('error', cancel);
  if (options.draining?.aborted === true) drain();
  else options.draining?.addEventListener('abort', drain, { once: true });
}

async function run(
  plane: DataPlane,
  msg: ModelInferRequest,
  signal: AbortSignal,
  arrivalNs: number,
  options: StreamOptions,
): Promise<ModelStreamInferResponse> {
  try {
    assertValidModelName(msg.model_name);
    const request = decodeInferRequest(msg);
    const response = await plane.infer(msg.model_name, versionOf(msg.model_version), request, {
      signal,
      arrivalNs,
    });
    return { error_message: '', infer_response: encodeInferResponse(response) };
  } catch (e) {
    const err = toServerError(e);
    if (err.status >= 500 && err.status !== 503) options.onServerError?.(err, 'ModelStreamInfer');
    return {
      error_message: err.message,
      infer_response: { model_name: msg.model_name, model_version: msg.model_version, id: msg.id },
    };
  }
}
