// ModelStreamInfer through grpc-js: its ServerDuplexStream carries a StreamSession
// (stream-session.ts), which owns the call's requests in flight, its flow control and its end.
// Plain calls skip grpc-js (stream-infer.ts); this path serves the calls with a deadline, a
// compressed request or a restriction on the RPC, which grpc-js implements.

import { status, type ServerDuplexStream } from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import type { ModelInferRequest } from './infer-codec.js';
import { decodeModelInferRequest } from './infer-request-wire.js';
import {
  StreamSession,
  type ModelStreamInferResponse,
  type StreamOptions,
} from './stream-session.js';

/**
 * What the stream's deserializer gives for bytes that are not a ModelInferRequest. grpc-js, left to
 * throw, ended the call at once and the answers of the valid requests before it were lost; as a
 * value it reaches the handler in order, which answers those first.
 */
const UNDECODABLE: ModelInferRequest = Object.freeze({
  model_name: '',
  model_version: '',
  id: '',
  inputs: [],
  outputs: [],
  raw_input_contents: [],
});

/** ModelStreamInfer's requestDeserialize: never throws (see UNDECODABLE). */
export function deserializeStreamRequest(bytes: Buffer): ModelInferRequest {
  try {
    return decodeModelInferRequest(bytes);
  } catch {
    return UNDECODABLE;
  }
}

export function serveModelStream(
  plane: DataPlane,
  call: ServerDuplexStream<ModelInferRequest, ModelStreamInferResponse>,
  options: StreamOptions,
): void {
  const session = new StreamSession(
    plane,
    {
      // grpc-js runs the callback once the answer's bytes were written to the HTTP/2 stream.
      send: (message, sent) => void call.write(message, sent),
      pause: () => void call.pause(),
      resume: () => void call.resume(),
      // grpc-js's writable side is in object mode: this asks for a drain at 16 answers.
      needsDrain: () => call.writableNeedDrain,
      finish: () => void call.end(),
      // grpc-js sends the status after the answers it has queued; it offers no reset.
      exhaust: (details) => void call.emit('error', { code: status.RESOURCE_EXHAUSTED, details }),
    },
    options,
  );
  let failed = false;
  call.on('data', (msg: ModelInferRequest) => {
    if (failed) return;
    if (msg !== UNDECODABLE) {
      session.receive(msg);
      return;
    }
    failed = true;
    // grpc-js's words for an undecodable request, sent once the answers before it are out.
    session.endWith(() =>
      call.emit('error', { code: status.INTERNAL, details: 'Error deserializing request' }),
    );
  });
  call.on('drain', () => session.flow());
  call.on('end', () => session.halfClose());
  call.on('cancelled', () => session.cancel());
  call.on('error', () => session.cancel());
}
