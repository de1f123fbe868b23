// A one-shot request (every model but a decoupled one): validated, answered from the response cache
// when its model enables it, otherwise queued on the model's scheduler and answered once with its
// outputs (those the request named a shared-memory region for are written there).

import { insertAfterRun, lookupResponse, type CacheMiss } from '../cache/cached-infer.js';
import type { CachedResponse } from '../cache/cached-response.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { toServerError } from '../errors.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { ModelVersion } from '../repository/model-version.js';
import type { RegionRegistry } from '../shared-memory/region-registry.js';
import type { Admission } from '../tenant/tenant-gate.js';
import type { InferContext } from './data-plane-api.js';
import { failureReason, reportFailed, reportSucceeded } from './outcome-report.js';
import type { RequestRecorder } from './request-recorder.js';
import { scheduledOutputs } from './response-outputs.js';
import type { ShadowRunner } from './shadow-runner.js';
import { intoSharedMemory } from './shm-outputs.js';
import { validateRequest } from './validate-request.js';

/** What a one-shot request needs from the data plane (its DataPlaneOptions provide it). */
export interface OneShotServices {
  /** --http-max-input-size, also the cap on one request's tensor bytes in shared memory. */
  readonly maxInputBytes: number;
  /** Client shared-memory registrations (--allow-client-shm=true); absent: the extension is off. */
  readonly sharedMemory?: RegionRegistry;
  /** The process's response cache (--cache-config), for models that enable it. */
  readonly responseCache?: ResponseCache<CachedResponse>;
  /** --record-requests: samples answered requests to disk. */
  readonly recorder?: RequestRecorder;
  /** Shadow versions: sampled re-runs after the answer. */
  readonly shadows?: ShadowRunner;
}

/**
 * Validates and answers one request on a model that answers once, or rejects with its error
 * (validation, queue, run); either way the model's statistics count it.
 */
export async function inferOneShot(
  services: OneShotServices,
  mv: ModelVersion,
  request: DecodedRequest | RawBinaryRequest,
  ctx: InferContext,
  admission: Admission | undefined,
): Promise<InferenceResponse> {
  const reporter = mv.reporter;
  let validated;
  try {
    validated = validateRequest(mv.signature, request, {
      signal: ctx.signal,
      arrivalNs: ctx.arrivalNs,
      maxInputBytes: services.maxInputBytes,
      ...(ctx.trace !== undefined && { trace: ctx.trace }),
      ...(services.sharedMemory !== undefined && { sharedMemory: services.sharedMemory }),
      ...(admission !== undefined && { tenant: admission.tag }),
    });
  } catch (e) {
    reportFailed(reporter, 'OTHER', ctx.arrivalNs);
    throw e;
  }
  ctx.trace?.mark('validate');
  const binary = new Map(validated.outputs.map((o) => [o.name, o.binary]));
  // The cache is consulted after validation (a hit answers only a request the model would take)
  // and before the queue; requests whose outputs go to shared memory get no key.
  const cache = mv.config.response_cache?.enable === true ? services.responseCache : undefined;
  let miss: CacheMiss | undefined;
  if (cache !== undefined) {
    const head = {
      model_name: mv.name,
      model_version: String(mv.version),
      ...(validated.id !== undefined ? { id: validated.id } : {}),
    };
    let found = lookupResponse(cache, validated, head, binary, reporter, ctx.arrivalNs);
    if (found instanceof Promise) found = await found;
    if (found.hit !== undefined) {
      // The bytes of a request that names no shared memory are all in its body: replayable.
      if (validated.regions === undefined) ctx.replay?.markCacheable();
      ctx.trace?.mark('respond');
      validated.regions?.releaseAll();
      return found.hit;
    }
    miss = found.miss;
  }
  // --record-requests: a sampled request's inputs are copied now, before a lone large one's
  // buffer can move to its worker; the answer is added once it is made.
  const recording = services.recorder?.sample(validated.inputs);
  // A shadow version's sample: inputs copied now for the same reason; it runs after the answer.
  const shadow = services.shadows?.sample(mv, validated.inputs);
  try {
    const result = await mv.scheduler.enqueue(validated);
    const outputs = scheduledOutputs(mv, result.outputs, binary);
    const response: InferenceResponse = {
      model_name: mv.name,
      model_version: String(mv.version),
      ...(validated.id !== undefined ? { id: validated.id } : {}),
      outputs:
        validated.regions === undefined
          ? outputs
          : intoSharedMemory(validated.outputs, outputs, result.outputs),
    };
    if (miss !== undefined) {
      insertAfterRun(miss, outputs, reporter);
      if (validated.regions === undefined) ctx.replay?.markCacheable();
    }
    recording?.finish(mv.name, mv.version, outputs);
    shadow?.answered(outputs, hrNow() - ctx.arrivalNs);
    reportSucceeded(reporter, result, ctx.arrivalNs);
    admission?.release(result.queueNs);
    ctx.trace?.mark('respond');
    return response;
  } catch (e) {
    const err = toServerError(e);
    reportFailed(reporter, failureReason(err.code), ctx.arrivalNs);
    throw err;
  } finally {
    // Answered (or failed): the regions it read and wrote are let go (an unregistered one
    // closes now).
    validated.regions?.releaseAll();
  }
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
