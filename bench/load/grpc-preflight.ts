// One request before any gRPC load: the server must answer the exact framed bytes the generator
// will send, over the generator's own kind of HTTP/2 connection, with the model's outputs (and, on
// a stream, with the id it was sent with). The answer is decoded whole from the protos,
// independently of the generator's own readers, which must then agree with that decode.

import http2 from 'node:http2';
import { decodeReply, MODEL_INFER_PATH, MODEL_STREAM_INFER_PATH } from '../model/grpc-service.js';
import { UsageError } from '../options/usage-error.js';
import {
  connectSession,
  describeStatus,
  grpcCallHeaders,
  type GrpcTarget,
} from './grpc-channel.js';
import { framedMessage, GrpcMessageReader } from './grpc-frames.js';
import {
  checkInferReply,
  GrpcStreamTemplate,
  readStreamReply,
  streamId,
  type GrpcRequestPayload,
} from './grpc-request.js';

interface InferReply {
  readonly id: string;
  readonly outputs: readonly { readonly name: string }[];
  readonly raw_output_contents: readonly Uint8Array[];
}

export async function grpcPreflight(
  target: GrpcTarget,
  request: GrpcRequestPayload,
  streaming: boolean,
  expectedOutputs: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const what = `preflight ${streaming ? 'ModelStreamInfer' : 'ModelInfer'} at ${target.host}:${target.port}`;
  let session: http2.ClientHttp2Session;
  try {
    session = await connectSession(target, timeoutMs);
  } catch (e) {
    throw new UsageError(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  session.on('error', () => undefined);
  try {
    const answer = await firstAnswer(session, request, streaming, timeoutMs, what);
    const reply = streaming ? streamReply(answer, what) : unaryReply(answer, what);
    const outputs = reply.outputs.map((o) => o.name);
    const missing = expectedOutputs.filter((name) => !outputs.includes(name));
    if (missing.length > 0 || reply.raw_output_contents.length !== outputs.length) {
      throw new UsageError(
        `${what}: expected outputs ${expectedOutputs.join(', ')} in raw_output_contents, got ` +
          `${outputs.join(', ') || 'none'} with ${reply.raw_output_contents.length} raw contents`,
      );
    }
  } finally {
    session.destroy();
  }
}

function unaryReply(answer: Buffer, what: string): InferReply {
  const decoded = decodeReply('ModelInfer', answer) as InferReply;
  const fast = checkInferReply(answer);
  if (fast !== null) throw new UsageError(`${what}: the generator's reader says: ${fast}`);
  return decoded;
}

function streamReply(answer: Buffer, what: string): InferReply {
  const decoded = decodeReply('ModelStreamInfer', answer) as {
    error_message: string;
    infer_response: InferReply | null;
  };
  const fast = readStreamReply(answer);
  if (decoded.error_message !== '' || decoded.infer_response === null) {
    throw new UsageError(`${what}: expected outputs, got "${decoded.error_message}"`);
  }
  if (decoded.infer_response.id !== streamId(1) || fast.id !== 1 || fast.error !== null) {
    throw new UsageError(
      `${what}: expected id ${streamId(1)} echoed, got "${decoded.infer_response.id}"` +
        ` (the generator read ${String(fast.id)})`,
    );
  }
  return decoded.infer_response;
}

/** The first message answered to the generator's bytes; a call that failed rejects with its status. */
function firstAnswer(
  session: http2.ClientHttp2Session,
  request: GrpcRequestPayload,
  streaming: boolean,
  timeoutMs: number,
  what: string,
): Promise<Buffer> {
  const stream = session.request(
    grpcCallHeaders(streaming ? MODEL_STREAM_INFER_PATH : MODEL_INFER_PATH),
    { endStream: false },
  );
  stream.on('error', () => undefined);
  const reader = new GrpcMessageReader();
  const headers: http2.IncomingHttpHeaders[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new UsageError(`${what}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    stream.on('response', (h) => headers.push(h));
    stream.on('trailers', (h) => headers.push(h));
    stream.on('data', (chunk: Buffer) => {
      const bad = reader.push(chunk, (m) => {
        clearTimeout(timer);
        resolve(Buffer.from(m));
      });
      if (bad !== null) reject(new UsageError(`${what}: ${bad}`));
    });
    stream.on('close', () => {
      clearTimeout(timer);
      const h = headers.find((x) => x['grpc-status'] !== undefined && x['grpc-status'] !== '0');
      const status = h === undefined ? undefined : String(h['grpc-status']);
      const message = h?.['grpc-message'];
      reject(
        new UsageError(
          `${what}: ${status === undefined ? `no answer (HTTP/2 code ${stream.rstCode})` : describeStatus(status, message === undefined ? undefined : String(message))}`,
        ),
      );
    });
    if (streaming) stream.write(new GrpcStreamTemplate(request).bytesFor(1));
    else stream.end(framedMessage(request.bytes));
  }).finally(() => {
    if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
  });
}
