// ModelInfer served straight on its node:http2 stream, beside grpc-js. grpc-js wraps every call in
// a chain of objects (an intercepting call, a Duplex, a metadata map, a stream decoder, listener
// records) that cost the server more CPU per unary call than decoding and encoding the tensors;
// the plain case of the hottest RPC skips them: read one length-prefixed message, run it, answer
// with headers, one DATA frame and the status trailers, as grpc-js writes them.
//
// Only the plain case comes here (`takesDirectPath`): no deadline, no compressed request, no
// restriction on the RPC. Any other ModelInfer call, and every other RPC but ModelStreamInfer
// (stream-infer.ts), goes to grpc-js as before, so those features keep one implementation.
//
// Each call holds a share of the client-memory budget (client-budget.ts): the request's bytes from
// their arrival until the answer is made, then the answer until the client has taken it. A call
// that does not fit ends with RESOURCE_EXHAUSTED (a trailers-only answer, which flow control does
// not hold back), so clients that send calls and never read the answers cannot take more than the
// budget between them; one that leaves mid-call leaves its bytes counted until they are reclaimed.

import type http2 from 'node:http2';
import { status } from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { toServerError, type InferenceServerError } from '../errors.js';
import { BudgetAccount, closeLeavingGarbage, type MemoryBudget } from '../memory/client-budget.js';
import { allocateRequestBytes, MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import { assertValidModelName } from '../repository/model-name.js';
import { decodeInferRequest, encodeInferResponse, versionOf } from './infer-codec.js';
import { decodeModelInferRequest } from './infer-request-wire.js';
import { encodeModelInferResponse } from './infer-response-wire.js';
import { grpcStatusOf, retryTrailers } from './grpc-status.js';
import { endWithMessage, endWithStatus, framePrefix, PREFIX_BYTES } from './h2-response.js';
import { budgetExhausted } from './stream-session.js';

export const MODEL_INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';

export interface UnaryInferOptions {
  /** Largest request message in bytes (-1: none); larger ones fail with RESOURCE_EXHAUSTED. */
  readonly maxReceiveBytes: number;
  /** The process's client-memory budget (--client-memory-budget); absent: calls are not counted. */
  readonly budget?: MemoryBudget;
  readonly onServerError?: (err: InferenceServerError, rpc: string, tenant?: string) => void;
}

/**
 * Whether a call can skip grpc-js: a gRPC content type, no deadline (grpc-timeout), an
 * uncompressed request. Which RPCs may (none under a restriction on inference) is decided once,
 * where the hook is installed.
 */
export function takesDirectPath(headers: http2.IncomingHttpHeaders): boolean {
  const type = headers['content-type'];
  if (typeof type !== 'string' || !type.startsWith('application/grpc')) return false;
  if (headers['grpc-timeout'] !== undefined) return false;
  const encoding = headers['grpc-encoding'];
  return encoding === undefined || encoding === 'identity';
}

/**
 * Serves one ModelInfer call on `stream` (its headers passed `takesDirectPath`); `traceparent` is
 * the call's W3C trace context metadata, as its header.
 */
export function serveUnaryInfer(
  plane: DataPlane,
  stream: http2.ServerHttp2Stream,
  options: UnaryInferOptions,
  traceparent?: string | string[],
  tenant?: string,
): void {
  const arrivalNs = Number(process.hrtime.bigint());
  const account = options.budget === undefined ? undefined : new BudgetAccount(options.budget);
  // A call whose answer the client took holds nothing when it closes. One that still holds bytes
  // (the client went, or the server ended it) leaves garbage: counted until it is reclaimed.
  if (account !== undefined) {
    stream.once('close', () => {
      if (account.held === 0) account.close();
      else closeLeavingGarbage(account);
    });
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let refused = false;
  /** What the prefix declares the call's body to be (undefined: the prefix has not arrived). */
  let declared: number | undefined;
  const refuse = (details: string): void => {
    refused = true;
    chunks.length = 0;
    endWithStatus(stream, status.RESOURCE_EXHAUSTED, details);
  };
  // Errors end in 'close' too; without a listener an error event would throw.
  stream.on('error', () => undefined);
  stream.on('data', (chunk: Buffer) => {
    if (refused) return;
    chunks.push(chunk);
    received += chunk.length;
    // The prefix gives the size before the message arrives: an oversized one is refused at once,
    // and the whole body is reserved in one step, so concurrent calls are admitted or refused
    // whole (reserving as bytes arrive would let many half-received calls fill the budget and
    // each be refused in turn).
    if (declared === undefined && received >= PREFIX_BYTES) {
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks, received);
      const size = head.readUInt32BE(1);
      declared = PREFIX_BYTES + size;
      if (options.maxReceiveBytes !== -1 && size > options.maxReceiveBytes) {
        refuse(`Received message larger than max (${size} vs ${options.maxReceiveBytes})`);
        return;
      }
    }
    if (account === undefined || declared === undefined) return;
    // More than declared (a second message, which the end refuses) is counted as it arrives.
    if (!account.hold(Math.max(declared, received))) {
      refuse(budgetExhausted(account.budget, 'no room for this request'));
    }
  });
  stream.on('end', () => {
    if (refused) return;
    const message = oneMessage(joinBody(chunks, received));
    if (typeof message === 'string') {
      endWithStatus(
        stream,
        message === 'none' || message === 'many' ? status.UNIMPLEMENTED : status.INTERNAL,
        problem(message),
      );
      return;
    }
    void run(plane, stream, message, arrivalNs, options, account, traceparent, tenant);
  });
}

async function run(
  plane: DataPlane,
  stream: http2.ServerHttp2Stream,
  message: Buffer,
  arrivalNs: number,
  options: UnaryInferOptions,
  account: BudgetAccount | undefined,
  traceparent: string | string[] | undefined,
  tenant: string | undefined,
): Promise<void> {
  let msg;
  try {
    msg = decodeModelInferRequest(message);
  } catch {
    // grpc-js's words for an undecodable request (it adds the reason only in a debug mode).
    endWithStatus(stream, status.INTERNAL, 'Error deserializing request');
    return;
  }
  const controller = new AbortController();
  // The client cancelled (RST_STREAM) or the connection went before the answer: the request
  // leaves its queue, or its result is dropped.
  const onClose = (): void => controller.abort();
  stream.once('close', onClose);
  try {
    const request = decodeInferRequest(msg);
    assertValidModelName(msg.model_name);
    const response = await plane.infer(msg.model_name, versionOf(msg.model_version), request, {
      signal: controller.signal,
      arrivalNs,
      ...(typeof traceparent === 'string' && { traceparent }),
      ...(tenant !== undefined && { tenant }),
    });
    stream.off('close', onClose);
    if (stream.closed || stream.destroyed) return;
    const framed = framePrefix(
      encodeModelInferResponse(encodeInferResponse(response), PREFIX_BYTES),
    );
    // The request is garbage now; the answer is held until the client takes it.
    if (account !== undefined && !account.hold(framed.length)) {
      endWithStatus(
        stream,
        status.RESOURCE_EXHAUSTED,
        budgetExhausted(account.budget, 'no room for this answer'),
      );
      return;
    }
    endWithMessage(stream, framed, () => account?.hold(0));
  } catch (e) {
    stream.off('close', onClose);
    const err = toServerError(e);
    if (err.status >= 500 && err.status !== 503) options.onServerError?.(err, 'ModelInfer', tenant);
    endWithStatus(stream, grpcStatusOf(err), err.message, retryTrailers(err));
  }
}

/**
 * The call's DATA chunks as one body. A large body goes into memory of its own (movable-buffers.ts)
 * rather than Buffer.concat's: its raw_input_contents stay views of it (infer-request-wire.ts), so
 * a lone large request's tensors move to the worker as HTTP binary bodies do, instead of a gather
 * into a shared block and, on Node 20, a second copy in the worker. The body's END is put on a
 * 64-byte boundary: raw_input_contents come last in a ModelInferRequest, so the last tensor ends
 * there and, its length being a multiple of its element size, starts aligned for its TypedArray
 * (moved-inputs.ts moves only aligned tensors; anything else is gathered, as before).
 */
export function joinBody(chunks: readonly Buffer[], received: number): Buffer {
  if (chunks.length === 1) return chunks[0] as Buffer;
  if (received < MOVE_MIN_BYTES) return Buffer.concat(chunks, received);
  const own = allocateRequestBytes(received, received);
  let at = 0;
  for (const chunk of chunks) {
    own.set(chunk, at);
    at += chunk.length;
  }
  return Buffer.from(own.buffer, own.byteOffset, own.byteLength);
}

/** The one message of a unary request's body, or what is wrong with the body. */
function oneMessage(body: Buffer): Buffer | 'none' | 'many' | 'truncated' | 'compressed' {
  if (body.length === 0) return 'none';
  if (body.length < PREFIX_BYTES) return 'truncated';
  if (body[0] !== 0) return 'compressed';
  const end = PREFIX_BYTES + body.readUInt32BE(1);
  if (end > body.length) return 'truncated';
  if (end < body.length) return 'many';
  return body.subarray(PREFIX_BYTES, end);
}

function problem(kind: 'none' | 'many' | 'truncated' | 'compressed'): string {
  switch (kind) {
    case 'none':
      return `Received no request message for server streaming method ${MODEL_INFER_PATH}`;
    case 'many':
      return `Received a second request message for server streaming method ${MODEL_INFER_PATH}`;
    case 'truncated':
      return 'the request ended inside its message';
    case 'compressed':
      return 'a compressed message on a call that declared no grpc-encoding';
  }
}
