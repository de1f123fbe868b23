// The response cache's step in one inference request: the lookup of a validated request before it
// enters a scheduler (a hit is answered and counted here), and the insertion of a successful run's
// outputs after a miss (counted as the miss, with its lookup and insertion time). The data plane
// calls these two and knows nothing else of the cache.

import { cacheKey, type CacheKey } from './cache-key.js';
import { fromCachedResponse, toCachedResponse, type CachedResponse } from './cached-response.js';
import type { ResponseCache } from './response-cache.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import type { InferenceResponse, ResponseOutput } from '../protocol/inference-request.js';
import type { ValidatedRequest } from '../scheduler/validated-request.js';

/** A request the cache did not hold: what its insertion needs once the run has succeeded. */
export interface CacheMiss {
  readonly cache: ResponseCache<CachedResponse>;
  readonly key: CacheKey;
  /** The lookup's time, counted with the insertion's as the miss's duration (Triton's). */
  readonly lookupNs: number;
}

/** A lookup's outcome: the answer from the cache, or the miss to complete after the run. */
export type CacheLookup =
  | { readonly hit: InferenceResponse; readonly miss?: undefined }
  | { readonly hit?: undefined; readonly miss: CacheMiss | undefined };

/** The head of a response answered for this request (its model, version and own id). */
export interface ResponseHead {
  readonly model_name: string;
  readonly model_version: string;
  readonly id?: string;
}

/**
 * Looks the request up. A hit is counted (its whole time since `arrivalNs` and the lookup's) and
 * returned as the response; otherwise the miss to pass to `insertAfterRun` (none when the request
 * gets no key: outputs into shared memory).
 */
export function lookupResponse(
  cache: ResponseCache<CachedResponse>,
  request: ValidatedRequest,
  head: ResponseHead,
  binary: ReadonlyMap<string, boolean>,
  reporter: ModelReporter,
  arrivalNs: number,
): CacheLookup | Promise<CacheLookup> {
  const start = hrNow();
  const key = cacheKey(request);
  if (key === undefined) return { miss: undefined };
  const found = cache.lookup(key);
  // Only a remote cache answers with a Promise: the local path stays synchronous, no microtask.
  if (found instanceof Promise) {
    return found.then((cached) =>
      settle(cache, key, cached, start, head, binary, reporter, arrivalNs),
    );
  }
  return settle(cache, key, found, start, head, binary, reporter, arrivalNs);
}

function settle(
  cache: ResponseCache<CachedResponse>,
  key: CacheKey,
  cached: CachedResponse | undefined,
  start: number,
  head: ResponseHead,
  binary: ReadonlyMap<string, boolean>,
  reporter: ModelReporter,
  arrivalNs: number,
): CacheLookup {
  const lookupNs = hrNow() - start;
  if (cached === undefined) return { miss: { cache, key, lookupNs } };
  const response = fromCachedResponse(cached, head, binary);
  reporter.cacheHit(hrNow() - arrivalNs, lookupNs);
  return { hit: response };
}

/**
 * Stores a successful run's outputs under the missed key and counts the miss. Only a successful
 * run is stored and counted, as in Triton: a failed one never reaches this.
 */
export function insertAfterRun(
  miss: CacheMiss,
  outputs: readonly ResponseOutput[],
  reporter: ModelReporter,
): void {
  const start = hrNow();
  const value = toCachedResponse(outputs);
  miss.cache.insert(miss.key, value, value.byteSize);
  reporter.cacheMiss(miss.lookupNs + hrNow() - start);
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
