// Admission by tenant quota, on the main thread in the data plane, before a request is validated
// and queued: the tenant's token buckets (tenant-wide and per model), its requests in flight, and
// its share of the model's queue. An admitted request holds an `Admission` until it is answered,
// however it ends; `replace` swaps the quotas (a reload) and keeps the counts of requests in flight.

import { InferenceServerError, type ErrorCode } from '../errors.js';
import type { TenantTag } from '../scheduler/tenant-tag.js';
import type { QuotaConfig, QuotaLimits, TenantQuota } from './quota-file.js';
import type { TenantMetrics, TenantSeries, ThrottleReason } from './tenant-metrics.js';
import { TokenBucket } from './token-bucket.js';

/** An admitted request's hold on its tenant's counts; `release` is idempotent. */
export interface Admission {
  readonly tag: TenantTag;
  /** The request is answered (`queueNs`: its queue wait, when the scheduler reported one). */
  release(queueNs?: number): void;
}

/** Tenants with nothing in flight are forgotten past this many (names a client can invent). */
const MAX_IDLE_STATES = 10_000;

interface Counted {
  inFlight: number;
  bucket: TokenBucket | undefined;
}

interface TenantState extends Counted {
  readonly name: string;
  quota: TenantQuota;
  tag: TenantTag;
  generation: number;
  readonly models: Map<string, Counted>;
  readonly series: TenantSeries | undefined;
}

export class TenantGate {
  #config: QuotaConfig;
  #generation = 0;
  readonly #states = new Map<string, TenantState>();

  constructor(
    config: QuotaConfig,
    private readonly metrics?: TenantMetrics,
    private readonly clock: () => number = hrNow,
  ) {
    this.#config = config;
  }

  get config(): QuotaConfig {
    return this.#config;
  }

  /** New quotas (a reload): buckets are rebuilt at the next request, in-flight counts kept. */
  replace(config: QuotaConfig): void {
    this.#config = config;
    this.#generation++;
  }

  /** Requests in flight for a tenant (tests, and the leak check). */
  inFlight(name: string): number {
    return this.#states.get(name)?.inFlight ?? 0;
  }

  /**
   * Admits one request of tenant `name` ('' without the header) for `model`, whose queue holds
   * `maxQueueSize` requests (0: unbounded), or throws the catalogued refusal with Retry-After.
   */
  admit(name: string, model: string, maxQueueSize: number): Admission {
    const now = this.clock();
    const quota = this.#config.tenants.get(name);
    if (quota === undefined && this.#config.unknown === 'refuse') {
      this.metrics?.series(name).throttled('unknown');
      throw refusal(
        'TENANT_UNKNOWN',
        `tenant '${name}' is not in the quota file, which refuses unknown tenants ` +
          `(model '${model}')`,
        undefined,
      );
    }
    const s = this.#state(name, quota ?? this.#config.default, now);
    const limits = s.quota.limits;
    const modelLimits = s.quota.models.get(model);
    const m = this.#model(s, model, modelLimits, now);
    const refuse = (
      reason: ThrottleReason,
      code: ErrorCode,
      what: string,
      retryS: number,
    ): never => {
      s.series?.throttled(reason);
      throw refusal(
        code,
        `tenant '${name}' is over its quota of ${what} for model '${model}'; retry after ${retryS} s`,
        retryS,
      );
    };
    if (limits.inFlight !== undefined && s.inFlight >= limits.inFlight) {
      refuse('in_flight', 'TENANT_IN_FLIGHT', `${limits.inFlight} requests in flight`, 1);
    }
    if (modelLimits?.inFlight !== undefined && m.inFlight >= modelLimits.inFlight) {
      refuse('in_flight', 'TENANT_IN_FLIGHT', `${modelLimits.inFlight} requests in flight`, 1);
    }
    const share = modelLimits?.queue ?? limits.queue;
    if (share !== undefined && maxQueueSize > 0) {
      const cap = Math.max(1, Math.floor(maxQueueSize * share));
      if (m.inFlight >= cap) {
        refuse(
          'queue_share',
          'TENANT_QUEUE_SHARE',
          `${cap} of the queue's ${maxQueueSize} places (queue ${share})`,
          1,
        );
      }
    }
    if (s.bucket !== undefined && !s.bucket.take(now)) {
      refuse(
        'rate',
        'TENANT_RATE_LIMITED',
        `${s.bucket.rps} requests per second`,
        s.bucket.retryAfterS(now),
      );
    }
    if (m.bucket !== undefined && !m.bucket.take(now)) {
      s.bucket?.refund();
      refuse(
        'rate',
        'TENANT_RATE_LIMITED',
        `${m.bucket.rps} requests per second`,
        m.bucket.retryAfterS(now),
      );
    }
    s.inFlight++;
    m.inFlight++;
    s.series?.admitted();
    let held = true;
    return {
      tag: s.tag,
      release: (queueNs) => {
        if (!held) return;
        held = false;
        s.inFlight--;
        m.inFlight--;
        s.series?.answered(queueNs);
      },
    };
  }

  #state(name: string, quota: TenantQuota, now: number): TenantState {
    let s = this.#states.get(name);
    if (s === undefined) {
      if (this.#states.size >= MAX_IDLE_STATES) this.#forgetIdle();
      s = {
        name,
        quota,
        tag: Object.freeze({ name, weight: quota.share }),
        generation: this.#generation,
        inFlight: 0,
        bucket: bucketFor(quota.limits, now, undefined),
        models: new Map(),
        series: this.metrics?.series(name),
      };
      this.#states.set(name, s);
    } else if (s.generation !== this.#generation) {
      s.generation = this.#generation;
      s.quota = quota;
      s.tag = Object.freeze({ name, weight: quota.share });
      s.bucket = bucketFor(quota.limits, now, s.bucket);
      for (const [model, m] of s.models)
        m.bucket = bucketFor(quota.models.get(model) ?? {}, now, m.bucket);
    }
    return s;
  }

  #model(s: TenantState, model: string, limits: QuotaLimits | undefined, now: number): Counted {
    let m = s.models.get(model);
    if (m === undefined) {
      m = {
        inFlight: 0,
        bucket: limits === undefined ? undefined : bucketFor(limits, now, undefined),
      };
      s.models.set(model, m);
    }
    return m;
  }

  #forgetIdle(): void {
    for (const [name, s] of this.#states) if (s.inFlight === 0) this.#states.delete(name);
  }
}

/**
 * The bucket for `limits` (none without rps). One that replaces another (a reload changed the
 * limits) carries its tokens, capped at the new burst, so tightening a quota gives no fresh burst;
 * at least one, so a tenant whose quota was raised is not held to the old rate's wait.
 */
function bucketFor(
  limits: QuotaLimits,
  now: number,
  old: TokenBucket | undefined,
): TokenBucket | undefined {
  if (limits.rps === undefined) return undefined;
  const burst = limits.burst ?? Math.max(1, limits.rps);
  if (old !== undefined && old.rps === limits.rps && old.burst === burst) return old;
  return new TokenBucket(
    limits.rps,
    burst,
    now,
    old === undefined ? undefined : Math.max(1, old.tokens(now)),
  );
}

function refusal(
  code: ErrorCode,
  message: string,
  retryAfterS: number | undefined,
): InferenceServerError {
  return new InferenceServerError(code, message, retryAfterS);
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
