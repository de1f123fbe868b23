// ModelStreamInfer served straight on its node:http2 stream, beside grpc-js, as unary-infer.ts
// serves ModelInfer: grpc-js's stream decoder, its read queue of promises, its object-mode Duplex
// and a serialize-then-copy per answer cost the server more CPU per streamed request than the
// tensors' own decoding and encoding. Here DATA chunks go through a MessageReader, each message
// through the hand-written decoder into the StreamSession (stream-session.ts, shared with the
// grpc-js path), and each answer leaves as one buffer, prefix included, encoded once.
//
// The session pauses the HTTP/2 stream when its bounds are reached: node:http2 then stops
// consuming the stream's DATA, and the client's flow-control window fills. An HTTP/2 stream's
// write completes once its bytes went out within the client's window, which is what the session
// counts as sent.
//
// Only plain calls come here (`takesDirectPath` in unary-infer.ts): no deadline, no grpc-encoding,
// no restriction on the RPC; the others go to grpc-js (model-stream.ts).

import http2 from 'node:http2';
import { status } from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import type { ModelInferRequest } from './infer-codec.js';
import { decodeModelInferRequest } from './infer-request-wire.js';
import { encodeModelStreamInferResponse } from './infer-response-wire.js';
import { endWithStatus, framePrefix, PREFIX_BYTES, respond } from './h2-response.js';
import { MessageReader } from './message-reader.js';
import { StreamSession, type StreamOptions, type StreamTransport } from './stream-session.js';

export const MODEL_STREAM_INFER_PATH = '/inference.GRPCInferenceService/ModelStreamInfer';

export interface DirectStreamOptions extends StreamOptions {
  /** Largest request message in bytes (-1: none); a larger one ends the call, RESOURCE_EXHAUSTED. */
  readonly maxReceiveBytes: number;
}

/** Serves one ModelStreamInfer call on `stream` (its headers passed `takesDirectPath`). */
export function serveStreamInfer(
  plane: DataPlane,
  stream: http2.ServerHttp2Stream,
  options: DirectStreamOptions,
): void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stream.uncork();
  };
  const transport: StreamTransport = {
    send: (message, sent) => {
      if (stream.closed || stream.destroyed) return;
      if (!stream.headersSent) respond(stream);
      // A batch's answers complete together, in one run of microtasks: corked until the next
      // tick, they leave as one writev (one DATA frame each, one pass through node:http2's write
      // path) instead of one write request per answer.
      if (!corked) {
        corked = true;
        stream.cork();
        process.nextTick(uncork);
      }
      stream.write(framePrefix(encodeModelStreamInferResponse(message, PREFIX_BYTES)), sent);
    },
    pause: () => void stream.pause(),
    resume: () => void stream.resume(),
    // node:http2 buffers what the client's window does not take yet; the session's byte bound
    // (not the stream's 16 KiB high-water mark, which one answer of 4 K floats would pass) says
    // when to stop reading.
    needsDrain: () => false,
    finish: () => endWithStatus(stream, status.OK, 'OK'),
    // Before any answer, the status can go out at once. After one, the answers unsent may sit
    // behind a window the client never opens, and so would the trailers: the stream is reset
    // instead, which frees them now. gRPC clients report ENHANCE_YOUR_CALM as RESOURCE_EXHAUSTED.
    exhaust: (details) => {
      failed = true;
      if (stream.closed || stream.destroyed) return;
      if (!stream.headersSent) {
        endWithStatus(stream, status.RESOURCE_EXHAUSTED, details);
        stream.resume();
      } else {
        stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      }
    },
  };
  let failed = false;
  const session = new StreamSession(plane, transport, options);
  const reader = new MessageReader(options.maxReceiveBytes);
  /**
   * A protocol error: nothing more is read, the requests already read are answered, and then the
   * call ends with `code` (a valid request's answer was lost when the error cancelled it).
   */
  const fail = (code: status, details: string): void => {
    failed = true;
    session.endWith(() => endWithStatus(stream, code, details));
    // Whatever the client still sends is read and dropped, so its window does not stall the
    // connection.
    stream.resume();
  };
  const onMessage = (message: Buffer): void => {
    if (failed) return;
    let msg: ModelInferRequest;
    try {
      msg = decodeModelInferRequest(message);
    } catch {
      // grpc-js's words for an undecodable request (it adds the reason only in a debug mode).
      fail(status.INTERNAL, 'Error deserializing request');
      return;
    }
    session.receive(msg);
  };
  stream.on('data', (chunk: Buffer) => {
    if (failed) return;
    const problem = reader.push(chunk, onMessage);
    if (problem !== undefined && !failed) fail(problem.code, problem.details);
  });
  stream.on('end', () => {
    if (failed) return;
    if (reader.midMessage) fail(status.INTERNAL, 'the request stream ended inside a message');
    else session.halfClose();
  });
  // The client cancelled (RST_STREAM) or the connection went; after a normal end this finds the
  // session already closed. Errors end in 'close' too; without a listener an error would throw.
  stream.on('close', () => session.cancel());
  stream.on('error', () => undefined);
}
