// One ModelStreamInfer call: many requests in flight at once on one bidirectional stream, each
// answered as it completes (its response carries its id), errors as `error_message` responses
// rather than a stream abort, and the stream's end cancelling what it still has queued.
//
// Flow control: a client that stops reading must not make the server hold its answers without
// bound. An answer's write completes only once Node's HTTP/2 stream has handed it on within the
// client's flow-control window, so the stream counts the answers written and not yet completed,
// and stops reading requests (grpc-js then stops reading HTTP/2 frames, and the client's own
// window fills) while their bytes reach `maxUnsentBytes`, while grpc-js's writable side needs a
// drain (16 answers), or while it holds `maxInflight` requests running or unsent. Requests already
// running still finish and are written; see docs/grpc.md for the whole bound.

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
  /** Requests one stream holds (running, or answered and not yet sent) before it stops reading. */
  readonly maxInflight: number;
  /** Bytes of answers (tensor data, error texts) written and not yet sent before it stops reading. */
  readonly maxUnsentBytes: number;
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
  /** Requests read and not yet sent: running, or answered with the answer still unsent. */
  let held = 0;
  /** Bytes of the answers written to grpc-js whose write has not completed. */
  let unsentBytes = 0;
  let ended = false;
  let closed = false;

  const flow = (): void => {
    if (closed) return;
    const full =
      held >= options.maxInflight ||
      unsentBytes >= options.maxUnsentBytes ||
      call.writableNeedDrain;
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
    const bytes = answerBytes(message);
    unsentBytes += bytes;
    // The callback runs once the answer left for the client (never, if the call is cancelled
    // first; nothing is read after that anyway).
    call.write(message, () => {
      unsentBytes -= bytes;
      held -= 1;
      flow();
    });
  };

  call.on('data', (msg: ModelInferRequest) => {
    if (closed) return;
    const arrivalNs = Number(process.hrtime.bigint());
    const controller = new AbortController();
    controllers.add(controller);
    held += 1;
    flow();
    // A decoupled model's responses before its final one: each is one more message on the stream,
    // held (and counted against the flow limits) like an answer until grpc-js has written it.
    const partial = (message: ModelStreamInferResponse): void => {
      if (closed) return;
      held += 1;
      send(message);
      flow();
    };
    void run(plane, msg, controller.signal, arrivalNs, options, partial).then((message) => {
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

/** What an answer holds in memory beyond its fixed fields: output bytes and the error text. */
function answerBytes(message: ModelStreamInferResponse): number {
  let n = message.error_message.length;
  for (const b of message.infer_response.raw_output_contents ?? []) n += b.byteLength;
  return n;
}

async function run(
  plane: DataPlane,
  msg: ModelInferRequest,
  signal: AbortSignal,
  arrivalNs: number,
  options: StreamOptions,
  partial: (message: ModelStreamInferResponse) => void,
): Promise<ModelStreamInferResponse> {
  const empty = { model_name: msg.model_name, model_version: msg.model_version, id: msg.id };
  try {
    assertValidModelName(msg.model_name);
    const request = decodeInferRequest(msg);
    const response = await plane.infer(msg.model_name, versionOf(msg.model_version), request, {
      signal,
      arrivalNs,
      // Decoupled models: each response as a message, marked `triton_final_response: false`, as
      // Triton marks them; the final flag (the resolved response) follows with `true`.
      responses: (r) => {
        if (r instanceof Error) {
          partial({ error_message: r.message, infer_response: empty });
          return;
        }
        partial({
          error_message: '',
          infer_response: encodeInferResponse({
            ...r,
            parameters: { ...r.parameters, triton_final_response: false },
          }),
        });
      },
    });
    return { error_message: '', infer_response: encodeInferResponse(response) };
  } catch (e) {
    const err = toServerError(e);
    if (err.status >= 500 && err.status !== 503) options.onServerError?.(err, 'ModelStreamInfer');
    return { error_message: err.message, infer_response: empty };
  }
}
