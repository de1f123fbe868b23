// The data plane's side of reply replay (cache/reply-replay.ts): whether a request that arrived as
// these exact bytes may be answered with a stored reply, and counting it when it is. Only a model
// that enables the response cache replays, and only when nothing would watch the request on its way
// (no trace span): a replayed request is counted as a cache hit, as Triton counts a hit, and is
// admitted by its tenant's quota like any other request.

import {
  ReplayMiss,
  type ReplyReplay,
  type StoredReply,
  type WireRequest,
} from '../cache/reply-replay.js';
import type { ModelVersion } from '../repository/model-version.js';
import type { TenantGate } from '../tenant/tenant-gate.js';
import type { InferContext } from './data-plane-api.js';

/** A stored reply to send as it is, or the miss to pass to `infer` (InferContext.replay). */
export type ReplayLookup =
  | { readonly hit: StoredReply; readonly miss?: undefined }
  | { readonly hit?: undefined; readonly miss: ReplayMiss };

/**
 * Bodies above this are decoded as usual: hashing them twice (here and for the response cache's
 * key) would cost more than the decode replay saves, which matters for small requests only.
 */
export const REPLAY_MAX_BYTES = 256 * 1024;

/**
 * Looks the request's bytes up for `mv`. Undefined when the model does not cache or the body is
 * large. A tenant over its quota is refused here as `infer` would refuse it (the gate throws); an
 * admitted hit lets its hold go at once, since it is answered.
 */
export function replayLookup(
  replies: ReplyReplay,
  mv: ModelVersion,
  request: WireRequest,
  ctx: InferContext,
  tenants: TenantGate | undefined,
): ReplayLookup | undefined {
  if (mv.config.response_cache?.enable !== true) return undefined;
  if (request.bytes.byteLength > REPLAY_MAX_BYTES) return undefined;
  const start = hrNow();
  const found = replies.lookup(mv, request);
  if (found instanceof ReplayMiss) return { miss: found };
  if (tenants !== undefined && ctx.tenant !== undefined) {
    tenants.admit(ctx.tenant, mv.name, maxQueueSize(mv)).release();
  }
  const now = hrNow();
  mv.reporter.cacheHit(now - ctx.arrivalNs, now - start);
  return { hit: found };
}

/** The model's queue bound (Triton's max_queue_size of its default policy); 0: unbounded. */
export function maxQueueSize(mv: ModelVersion): number {
  return mv.config.dynamic_batching?.default_queue_policy?.max_queue_size ?? 0;
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
