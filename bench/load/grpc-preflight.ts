// One request before any gRPC load: the server must answer the exact bytes the generator will send
// with the model's outputs (and, on a stream, with the id it was sent with). The answer is decoded
// whole from the protos, independently of the generator's own id reader, which must then agree.

import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import {
  CHANNEL_OPTIONS,
  decodeReply,
  describeGrpcError,
  MODEL_INFER_PATH,
  MODEL_STREAM_INFER_PATH,
} from '../model/grpc-service.js';
import { UsageError } from '../options/usage-error.js';
import { passBytes } from './grpc-channel.js';
import {
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
  target: string,
  request: GrpcRequestPayload,
  streaming: boolean,
  expectedOutputs: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const client = new Client(target, credentials.createInsecure(), CHANNEL_OPTIONS);
  const what = `preflight ${streaming ? 'ModelStreamInfer' : 'ModelInfer'} at ${target}`;
  try {
    const reply = streaming
      ? await streamOnce(client, request, timeoutMs, what)
      : await unaryOnce(client, request, timeoutMs, what);
    const outputs = reply.outputs.map((o) => o.name);
    const missing = expectedOutputs.filter((name) => !outputs.includes(name));
    if (missing.length > 0 || reply.raw_output_contents.length !== outputs.length) {
      throw new UsageError(
        `${what}: expected outputs ${expectedOutputs.join(', ')} in raw_output_contents, got ` +
          `${outputs.join(', ') || 'none'} with ${reply.raw_output_contents.length} raw contents`,
      );
    }
  } finally {
    client.close();
  }
}

function unaryOnce(
  client: Client,
  request: GrpcRequestPayload,
  timeoutMs: number,
  what: string,
): Promise<InferReply> {
  const bytes = Buffer.from(request.bytes);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      MODEL_INFER_PATH,
      passBytes,
      passBytes,
      bytes,
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, answer?: Buffer) => {
        if (err !== null || answer === undefined) {
          reject(new UsageError(`${what}: ${describeGrpcError(err)}`));
          return;
        }
        resolve(decodeReply('ModelInfer', answer) as InferReply);
      },
    );
  });
}

function streamOnce(
  client: Client,
  request: GrpcRequestPayload,
  timeoutMs: number,
  what: string,
): Promise<InferReply> {
  const call = client.makeBidiStreamRequest(MODEL_STREAM_INFER_PATH, passBytes, passBytes, {
    deadline: Date.now() + timeoutMs,
  });
  return new Promise<InferReply>((resolve, reject) => {
    call.once('data', (answer: Buffer) => {
      const decoded = decodeReply('ModelStreamInfer', answer) as {
        error_message: string;
        infer_response: InferReply | null;
      };
      const fast = readStreamReply(answer);
      if (decoded.error_message !== '' || decoded.infer_response === null) {
        reject(new UsageError(`${what}: expected outputs, got "${decoded.error_message}"`));
      } else if (decoded.infer_response.id !== streamId(1) || fast.id !== 1) {
        reject(
          new UsageError(
            `${what}: expected id ${streamId(1)} echoed, got "${decoded.infer_response.id}"` +
              ` (the generator read ${String(fast.id)})`,
          ),
        );
      } else {
        resolve(decoded.infer_response);
      }
    });
    call.once('error', (e) => reject(new UsageError(`${what}: ${describeGrpcError(e)}`)));
    call.write(new GrpcStreamTemplate(request).bytesFor(1));
  }).finally(() => {
    // Ending the stream early surfaces as a CANCELLED 'error', accounted for above.
    call.on('error', () => undefined);
    call.cancel();
  });
}
