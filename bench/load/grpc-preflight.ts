// One request before any gRPC load: the server must answer the exact framed bytes the generator
// will send, over the generator's own HTTP/2 client, with the model's outputs (and, on
// a stream, with the id it was sent with). The answer is decoded whole from the protos,
// independently of the generator's own readers, which must then agree with that decode.

import { decodeReply, MODEL_INFER_PATH, MODEL_STREAM_INFER_PATH } from '../model/grpc-service.js';
import { UsageError } from '../options/usage-error.js';
import {
  connectSession,
  GrpcCallStatus,
  grpcCallHeaderBlock,
  type GrpcTarget,
} from './grpc-channel.js';
import { MessageReader } from 'infernode/tooling';
import { framedMessage } from './grpc-frames.js';
import {
  checkInferReply,
  GrpcStreamTemplate,
  readStreamReply,
  streamId,
  type GrpcRequestPayload,
} from './grpc-request.js';
import type { H2Client } from './h2-client.js';
import type { H2Stream, H2StreamEvents } from './h2-stream.js';

interface InferReply {
  readonly id: string;
  readonly outputs: readonly {
    readonly name: string;
    readonly parameters?: Readonly<Record<string, unknown>>;
  }[];
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
  let client: H2Client;
  try {
    client = await connectSession(target, timeoutMs);
  } catch (e) {
    throw new UsageError(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const answer = await firstAnswer(client, target, request, streaming, timeoutMs, what);
    const reply = streaming ? streamReply(answer, what) : unaryReply(answer, what);
    const outputs = reply.outputs.map((o) => o.name);
    const missing = expectedOutputs.filter((name) => !outputs.includes(name));
    // Outputs written into a shared-memory region (--shared-memory system) have no raw contents.
    const inRegions = reply.outputs.filter(
      (o) => o.parameters !== undefined && 'shared_memory_region' in o.parameters,
    ).length;
    if (missing.length > 0 || reply.raw_output_contents.length !== outputs.length - inRegions) {
      throw new UsageError(
        `${what}: expected outputs ${expectedOutputs.join(', ')} in raw_output_contents, got ` +
          `${outputs.join(', ') || 'none'} with ${reply.raw_output_contents.length} raw contents`,
      );
    }
  } finally {
    client.close('preflight done');
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
  client: H2Client,
  target: GrpcTarget,
  request: GrpcRequestPayload,
  streaming: boolean,
  timeoutMs: number,
  what: string,
): Promise<Buffer> {
  const reader = new MessageReader(-1);
  const status = new GrpcCallStatus();
  let stream: H2Stream | null = null;
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new UsageError(`${what}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const failed = (reason: string): void => {
      clearTimeout(timer);
      reject(new UsageError(`${what}: ${reason}`));
    };
    const ended = (): void =>
      failed(status.ok ? 'no answer before the call ended' : status.describe());
    const events: H2StreamEvents = {
      onHeaders: (fields, endStream) => {
        status.read(fields);
        if (endStream) ended();
      },
      onData: (chunk, endStream) => {
        const bad = reader.push(chunk, (m) => {
          clearTimeout(timer);
          resolve(Buffer.from(m));
        });
        if (bad !== undefined) failed(bad.details);
        else if (endStream) ended();
      },
      onAbort: (reason) => failed(`no answer (${reason})`),
    };
    const block = grpcCallHeaderBlock(
      target,
      streaming ? MODEL_STREAM_INFER_PATH : MODEL_INFER_PATH,
    );
    stream = streaming
      ? client.open(block, events, new GrpcStreamTemplate(request).bytesFor(1), false)
      : client.open(block, events, framedMessage(request.bytes), true);
  }).finally(() => {
    if (stream !== null) client.cancel(stream);
  });
}
