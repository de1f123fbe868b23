// Admission by tenant quota, on the main thread in the data plane, before a request is validated
// and queued: the tenant's token buckets (tenant-wide and per model), its requests in flight, and
// its share of the model's queue. An admitted request holds an `Admission` until it is answered,
// however it ends; `replace` swaps the quotas (a reload) and keeps the counts of requests in flight.
// A refusal at `in_flight` or the queue share says when to retry from the tenant's oldest request
// in flight: the model's recent mean request time less that request's age (see retryAfterMs).

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
/** Weight of the newest request in a model's mean request time (an exponential moving mean). */
const MEAN_WEIGHT = 0.2;
/** The retry delay when the model has no request time yet: what Retry-After said before. */
const UNKNOWN_RETRY_MS = 1000;
/** Retry-After is whole seconds; past a minute a client should rather look again than wait. */
const MAX_RETRY_MS = 60_000;

/** One admitted request: when, and for which model (whose mean time predicts its end). */
interface Hold {
  readonly startNs: number;
  readonly model: string;
}

interface Counted {
  /** The requests in flight, oldest first (a Set keeps insertion order). */
  readonly held: Set<Hold>;
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
  /** Each model's recent mean time from admission to answer (ns), over all tenants. */
  readonly #meanNs = new Map<string, number>();

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
    return this.#states.get(name)?.held.size ?? 0;
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
      retryMs: number,
    ): never => {
      s.series?.throttled(reason);
      throw refusal(
        code,
        `tenant '${name}' is over its quota of ${what} for model '${model}'; retry after ${retryS} s`,
        retryS,
        retryMs,
      );
    };
    const full = (
      reason: ThrottleReason,
      code: ErrorCode,
      what: string,
      held: Set<Hold>,
    ): never => {
      const ms = this.#retryAfterMs(held, now);
      return refuse(reason, code, what, wholeSeconds(ms), ms);
    };
    if (limits.inFlight !== undefined && s.held.size >= limits.inFlight) {
      full('in_flight', 'TENANT_IN_FLIGHT', `${limits.inFlight} requests in flight`, s.held);
    }
    if (modelLimits?.inFlight !== undefined && m.held.size >= modelLimits.inFlight) {
      full('in_flight', 'TENANT_IN_FLIGHT', `${modelLimits.inFlight} requests in flight`, m.held);
    }
    const share = modelLimits?.queue ?? limits.queue;
    if (share !== undefined && maxQueueSize > 0) {
      const cap = Math.max(1, Math.floor(maxQueueSize * share));
      if (m.held.size >= cap) {
        full(
          'queue_share',
          'TENANT_QUEUE_SHARE',
          `${cap} of the queue's ${maxQueueSize} places (queue ${share})`,
          m.held,
        );
      }
    }
    if (s.bucket !== undefined && !s.bucket.take(now)) {
      refuse(
        'rate',
        'TENANT_RATE_LIMITED',
        `${s.bucket.rps} requests per second`,
        s.bucket.retryAfterS(now),
        s.bucket.retryAfterMs(now),
      );
    }
    if (m.bucket !== undefined && !m.bucket.take(now)) {
      s.bucket?.refund();
      refuse(
        'rate',
        'TENANT_RATE_LIMITED',
        `${m.bucket.rps} requests per second`,
        m.bucket.retryAfterS(now),
        m.bucket.retryAfterMs(now),
      );
    }
    const hold: Hold = { startNs: now, model };
    s.held.add(hold);
    m.held.add(hold);
    s.series?.admitted();
    let held = true;
    return {
      tag: s.tag,
      release: (queueNs) => {
        if (!held) return;
        held = false;
        s.held.delete(hold);
        m.held.delete(hold);
        this.#answered(model, this.clock() - now);
        s.series?.answered(queueNs);
      },
    };
  }

  /** Folds one request's time from admission to answer into its model's mean. */
  #answered(model: string, ns: number): void {
    const mean = this.#meanNs.get(model);
    // Requests for models that do not exist are admitted before validation: bound the names kept.
    if (mean === undefined && this.#meanNs.size >= MAX_IDLE_STATES) this.#meanNs.clear();
    this.#meanNs.set(model, mean === undefined ? ns : mean + MEAN_WEIGHT * (ns - mean));
  }

  /**
   * When a place among `held` (full) may be free: the oldest request's model's mean request time
   * less its age; a tenth of that mean when it is already overdue (it should end any moment); 1 s
   * while the model has no answered request yet. In ms, within [1, 60 000].
   */
  #retryAfterMs(held: Set<Hold>, now: number): number {
    const oldest = held.values().next().value as Hold | undefined;
    const mean = oldest === undefined ? undefined : this.#meanNs.get(oldest.model);
    if (oldest === undefined || mean === undefined) return UNKNOWN_RETRY_MS;
    const left = mean - (now - oldest.startNs);
    const ms = Math.ceil((left > 0 ? left : mean / 10) / 1e6);
    return Math.min(MAX_RETRY_MS, Math.max(1, ms));
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
        held: new Set(),
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
        held: new Set(),
        bucket: limits === undefined ? undefined : bucketFor(limits, now, undefined),
      };
      s.models.set(model, m);
    }
    return m;
  }

  #forgetIdle(): void {
    for (const [name, s] of this.#states) if (s.held.size === 0) this.#states.delete(name);
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
  retryAfterMs?: number,
): InferenceServerError {
  return new InferenceServerError(code, message, retryAfterS, retryAfterMs);
}

/** Retry-After's whole seconds for a delay in ms: rounded up, within [1, 60]. */
function wholeSeconds(ms: number): number {
  return Math.min(MAX_RETRY_MS / 1000, Math.max(1, Math.ceil(ms / 1000)));
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
