// KServe v2 / Triton HTTP routes: matches a path to a data-plane call and encodes the result. Thin
// by design — decoding, validation and scheduling live in the codecs and the data plane.

import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import type { DataPlanePort } from '../dataplane/data-plane-api.js';
import { fail, toServerError, type InferenceServerError } from '../errors.js';
import type { HttpCall, HttpHandler, HttpReply } from './front-end.js';
import { decodeInferBody } from './decode-infer-body.js';
import type { StoredReply } from '../cache/reply-replay.js';
import { collectGarbage } from '../memory/collect-garbage.js';
import { LARGE_GARBAGE_BYTES } from '../memory/reclaim-after-large.js';
import { encodeInferResponse, type EncodedInferResponse } from './encode-infer-response.js';
import { errorReply } from './error-reply.js';
import { assertValidModelName } from '../repository/model-name.js';
import { repositoryNameRefused } from '../protocol/repository-parameters.js';
import { decodeIndexBody, decodeLoadBody, decodeUnloadBody } from './repository-body.js';
import type { StageRecorder } from '../trace/stage-recorder.js';
import { matchShmRoute, shmRoute } from './shm-routes.js';
import { parseJsonBytes } from './json-text.js';
import { parseTraceUpdate } from '../trace/trace-settings.js';
import { decodeLoggingBody, LOGGING_PATH } from './logging-route.js';
import type { LogSettingsPort } from '../logging/log-settings.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

// Triton's route grammar (http_server.cc): numeric versions only.
const MODEL_ROUTE =
  /^\/v2\/models\/([^/]+)(?:\/versions\/([0-9]+))?(?:\/(infer|ready|config|stats|trace\/setting))?$/;
// Triton's model-repository routes (modelcontrol_regex_), with its optional repository segment.
const REPOSITORY_ROUTE =
  /^\/v2\/repository(?:\/([^/]+))?\/(?:(index)|models\/([^/]+)\/(load|unload))$/;

export interface RouteOptions {
  readonly maxBodyBytes: number;
  /** Called with every 5xx error, for the log. */
  readonly onServerError?: (err: InferenceServerError, call: HttpCall) => void;
  /**
   * --trace-stages: every inference request is timed stage by stage into this recorder, and
   * `GET /v2/debug/stages[?reset=true]` serves its table. Absent: no request is traced and the
   * debug route does not exist.
   */
  readonly stages?: StageRecorder;
  /** The logging extension (`/v2/logging`); absent, the path answers 404. */
  readonly logging?: LogSettingsPort;
  /** --tenant-header, lower-case: each inference request's tenant is this header's value. */
  readonly tenantHeader?: string;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' });

export function json(status: number, value: unknown): HttpReply {
  return { status, headers: JSON_HEADERS, body: JSON.stringify(value) };
}

const empty = (status: number): HttpReply => ({ status, body: '' });

export function kserveRoutes(plane: DataPlanePort, options: RouteOptions): HttpHandler {
  return async (call) => {
    try {
      return await route(plane, options, call);
    } catch (e) {
      const err = toServerError(e);
      if (err.status >= 500 && err.status !== 503) options.onServerError?.(err, call);
      return errorReply(err);
    }
  };
}

async function route(
  plane: DataPlanePort,
  options: RouteOptions,
  call: HttpCall,
): Promise<HttpReply> {
  const { path } = call;
  if (path === '/v2' || path === '/v2/') {
    requireMethod(call, 'GET');
    return json(200, await plane.serverMetadata());
  }
  if (path === '/v2/health/live') {
    requireMethod(call, 'GET');
    return empty((await plane.live()) ? 200 : 503);
  }
  if (path === '/v2/health/ready') {
    requireMethod(call, 'GET');
    return empty((await plane.ready()) ? 200 : 503);
  }
  if (path === '/v2/debug/stages' && options.stages !== undefined) {
    requireMethod(call, 'GET');
    const table = options.stages.table();
    if (/(?:^|&)reset=true(?:&|$)/.test(call.query)) options.stages.reset();
    return json(200, table);
  }
  if (path === '/v2/trace/setting') return traceSetting(plane, options, call, undefined);
  if (path === '/v2/models/stats') {
    requireMethod(call, 'GET');
    return json(200, await plane.modelStats(undefined, undefined));
  }
  if (path === LOGGING_PATH && options.logging !== undefined) {
    if (call.method === 'GET') return json(200, await options.logging.logSettings(undefined));
    requireMethod(call, 'POST');
    const update = decodeLoggingBody(await decompress(call, options.maxBodyBytes));
    return json(200, await options.logging.logSettings(update));
  }
  const r = REPOSITORY_ROUTE.exec(path);
  if (r !== null) return repository(plane, options, call, r);
  const shm = matchShmRoute(path);
  if (shm !== null) {
    const reply = await shmRoute(plane, call, shm, () => decompress(call, options.maxBodyBytes));
    return reply.kind === 'status'
      ? json(200, reply.value)
      : { status: 200, headers: JSON_HEADERS, body: '' };
  }
  const m = MODEL_ROUTE.exec(path);
  if (m === null) throw fail('NOT_FOUND', 'Not Found');
  const name = decodeName(m[1] as string);
  const version = m[2];
  switch (m[3]) {
    case undefined:
      requireMethod(call, 'GET');
      return json(200, await plane.modelMetadata(name, version));
    case 'ready':
      requireMethod(call, 'GET');
      return (await plane.modelReady(name, version))
        ? empty(200)
        : json(503, { error: 'Model version not ready' });
    case 'config':
      requireMethod(call, 'GET');
      return json(200, await plane.modelConfig(name, version));
    case 'stats':
      requireMethod(call, 'GET');
      return json(200, await plane.modelStats(name, version));
    case 'trace/setting':
      return traceSetting(plane, options, call, name);
    case 'infer': {
      requireMethod(call, 'POST');
      const arrivalNs = Number(process.hrtime.bigint());
      const trace = options.stages?.begin(arrivalNs);
      const tenantHeader = options.tenantHeader;
      const tenant = tenantHeader === undefined ? undefined : (call.header(tenantHeader) ?? '');
      // Reply replay (local response cache): these exact bytes answered before are answered again
      // with the stored reply, nothing decoded. `trace` is off here (replay never runs traced).
      const replay =
        trace === undefined && plane.replays === true
          ? plane.replay?.(
              name,
              version,
              { framing: wireFraming(call), bytes: call.body },
              { signal: call.signal, arrivalNs, ...(tenant !== undefined && { tenant }) },
            )
          : undefined;
      if (replay?.hit !== undefined) return replayedReply(replay.hit);
      const bodyBytes = call.body.byteLength;
      // Quotas before the body is parsed, where the plane can (the main thread): a refusal costs
      // the headers only. The admission goes to `infer`, or is released if the body is refused.
      const admission =
        tenant === undefined ? undefined : plane.admitTenant?.(name, version, tenant);
      let request: Awaited<ReturnType<typeof decodeCallBody>>;
      try {
        request = await decodeCallBody(call, options.maxBodyBytes);
      } catch (e) {
        admission?.release();
        throw e;
      }
      trace?.mark('parse');
      // A large JSON body is all garbage now (its numbers are in typed tensors): collected at once
      // it is gone before the run allocates the outputs, instead of whenever V8 gets to it. A full
      // GC is ~10-30 ms of main thread, against the seconds such a body takes to arrive and decode.
      if (bodyBytes >= LARGE_GARBAGE_BYTES && isJson(call)) collectGarbage();
      const traceparent = call.header('traceparent');
      const response = await plane.infer(name, version, request, {
        signal: call.signal,
        arrivalNs,
        ...(trace !== undefined && { trace }),
        ...(traceparent !== undefined && { traceparent }),
        ...(tenant !== undefined && { tenant }),
        ...(replay !== undefined && { replay: replay.miss }),
        ...(admission !== undefined && { admission }),
      });
      const encoded = encodeInferResponse(response);
      replay?.miss.remember(replyFraming(encoded), bodyChunks(encoded));
      const reply = inferReply(encoded);
      if (trace === undefined || options.stages === undefined) return reply;
      trace.mark('encode');
      const stages = options.stages;
      return {
        ...reply,
        onFinished: (delivered) => {
          reply.onFinished?.(delivered);
          if (!delivered) return;
          trace.mark('send');
          stages.record(trace);
        },
      };
    }
    default:
      throw fail('NOT_FOUND', 'Not Found');
  }
}

/** Triton's trace extension: GET answers the settings, POST updates them and answers the result. */
async function traceSetting(
  plane: DataPlanePort,
  options: RouteOptions,
  call: HttpCall,
  model: string | undefined,
): Promise<HttpReply> {
  if (call.method === 'GET') return json(200, await plane.traceSetting(model, undefined));
  requireMethod(call, 'POST');
  const body = await decompress(call, options.maxBodyBytes);
  const update = parseTraceUpdate(body.byteLength === 0 ? {} : parseJsonBytes(body));
  return json(200, await plane.traceSetting(model, update));
}

/**
 * The repository API. As in Triton: the index ignores a repository segment, load and unload refuse
 * one (501); success is 200 with an empty body. Only load checks the model name against the
 * whitelist: unload never builds a path from it (the data plane only looks it up), and Triton
 * applies its traversal check to load alone (L0_input_validation).
 */
async function repository(
  plane: DataPlanePort,
  options: RouteOptions,
  call: HttpCall,
  match: RegExpExecArray,
): Promise<HttpReply> {
  requireMethod(call, 'POST');
  const [, repositoryName, index, segment, action] = match;
  if (index !== undefined) {
    const readyOnly = decodeIndexBody(await decompress(call, options.maxBodyBytes));
    return json(200, await plane.repositoryIndex(readyOnly));
  }
  if (repositoryName !== undefined) throw repositoryNameRefused();
  const name = percentDecoded(segment as string);
  if (action === 'load') {
    assertValidModelName(name);
    await plane.loadModel(name, decodeLoadBody(await decompress(call, options.maxBodyBytes)));
  } else {
    await plane.unloadModel(name, decodeUnloadBody(await decompress(call, options.maxBodyBytes)));
  }
  return { status: 200, headers: JSON_HEADERS, body: '' };
}

/** How a request body is read: its binary header's length and its Content-Encoding. */
function wireFraming(call: HttpCall): string {
  const length = call.header('inference-header-content-length') ?? '';
  const encoding = call.header('content-encoding') ?? '';
  return `${length}|${encoding}`;
}

/** A stored reply's framing: `json`, or the binary reply's JSON header length. */
function replyFraming(encoded: EncodedInferResponse): string {
  return encoded.kind === 'json' ? 'json' : String(encoded.headerLength);
}

function bodyChunks(encoded: EncodedInferResponse): readonly Uint8Array[] {
  const body = encoded.body;
  return typeof body === 'string' ? [Buffer.from(body)] : body;
}

/** A replayed reply, framed as when it was first sent. */
function replayedReply(stored: StoredReply): HttpReply {
  if (stored.framing === 'json') return { status: 200, headers: JSON_HEADERS, body: stored.body };
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': stored.framing,
    },
    body: stored.body,
  };
}

/** JSON as `application/json`; a binary body as `application/octet-stream` with its JSON length. */
function inferReply(encoded: EncodedInferResponse): HttpReply {
  if (encoded.kind === 'json') return { status: 200, headers: JSON_HEADERS, body: encoded.body };
  return {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(encoded.headerLength),
    },
    body: encoded.body,
  };
}

function requireMethod(call: HttpCall, method: 'GET' | 'POST'): void {
  if (call.method !== method) {
    throw fail(
      'METHOD_NOT_ALLOWED',
      `Method Not Allowed: expected ${method}, got ${call.method.slice(0, 16)}`,
    );
  }
}

function decodeName(segment: string): string {
  const name = percentDecoded(segment);
  assertValidModelName(name);
  return name;
}

function percentDecoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw fail('BAD_MODEL_NAME', 'the model name in the path is not valid percent-encoding');
  }
}

/**
 * The request the body encodes; the call then lets go of the body, so a large one (JSON text, which
 * decoding turned into typed tensors) is garbage while the request runs rather than after it.
 * Binary tensor data stays alive exactly as long as the tensors that view it.
 */
async function decodeCallBody(
  call: HttpCall,
  maxBytes: number,
): Promise<ReturnType<typeof decodeInferBody>> {
  const decoded = decodeInferBody(
    await decompress(call, maxBytes),
    call.header('inference-header-content-length'),
  );
  call.releaseBody?.();
  return decoded;
}

/** A body with no binary tensor section: all of it is JSON text. */
function isJson(call: HttpCall): boolean {
  return call.header('inference-header-content-length') === undefined;
}

/** Content-Encoding gzip/deflate, with the body limit applied to the decompressed size. */
async function decompress(call: HttpCall, maxBytes: number): Promise<Uint8Array> {
  const encoding = (call.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return call.body;
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw fail(
      'BAD_REQUEST',
      `unsupported Content-Encoding '${encoding.slice(0, 32)}': expected gzip, deflate or identity`,
    );
  }
  try {
    const out = await (encoding === 'gzip' ? gunzipAsync : inflateAsync)(call.body, {
      maxOutputLength: maxBytes,
    });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw fail(
        'BODY_TOO_LARGE',
        // Triton's wording (data_compressor.h).
        `Decompressed data size exceeds the maximum allowed value of ${maxBytes} bytes. ` +
          'Use --http-max-input-size to increase the limit.',
      );
    }
    throw fail('BAD_REQUEST', `request body is not valid ${encoding} data`);
  }
}
