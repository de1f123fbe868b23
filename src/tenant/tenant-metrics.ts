// Per-tenant Prometheus series (infernode_tenant_*), on the server's registry. The `tenant` label is
// the tenant's name for the first `maxTenants` names seen, `other` for every name after them, so a
// client inventing names cannot grow the scrape without bound. Requests without the header are
// `anonymous`.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS_SECONDS } from '../metrics/metrics-catalog.js';

export type ThrottleReason = 'rate' | 'in_flight' | 'queue_share' | 'unknown';

export const OTHER_TENANTS = 'other';
export const ANONYMOUS_TENANT = 'anonymous';

/** One tenant label's series, bound once so a request does no label lookup. */
export interface TenantSeries {
  readonly label: string;
  admitted(): void;
  throttled(reason: ThrottleReason): void;
  /** Answered, however it ended; `queueNs` when the scheduler reported the wait. */
  answered(queueNs: number | undefined): void;
}

export class TenantMetrics {
  readonly #admitted: Counter<'tenant'>;
  readonly #throttled: Counter<'tenant' | 'reason'>;
  readonly #inFlight: Gauge<'tenant'>;
  readonly #queue: Histogram<'tenant'>;
  readonly #series = new Map<string, TenantSeries>();

  constructor(
    registry: Registry,
    readonly maxTenants: number,
  ) {
    const registers = [registry];
    this.#admitted = new Counter({
      name: 'infernode_tenant_admitted_total',
      help: 'Requests admitted past the tenant quotas',
      labelNames: ['tenant'],
      registers,
    });
    this.#throttled = new Counter({
      name: 'infernode_tenant_throttled_total',
      help: 'Requests refused by a tenant quota, by the limit that refused them',
      labelNames: ['tenant', 'reason'],
      registers,
    });
    this.#inFlight = new Gauge({
      name: 'infernode_tenant_in_flight',
      help: 'Requests admitted for the tenant and not yet answered',
      labelNames: ['tenant'],
      registers,
    });
    this.#queue = new Histogram({
      name: 'infernode_tenant_queue_duration_seconds',
      help: "Time the tenant's answered requests waited in a model's queue",
      labelNames: ['tenant'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
  }

  /** The series for a tenant name ('' for a request without the header). */
  series(name: string): TenantSeries {
    const label =
      name === ''
        ? ANONYMOUS_TENANT
        : this.#series.has(name) || this.#series.size < this.maxTenants
          ? name
          : OTHER_TENANTS;
    const known = this.#series.get(label);
    if (known !== undefined) return known;
    const admitted = this.#admitted.labels(label);
    const inFlight = this.#inFlight.labels(label);
    const queue = this.#queue.labels(label);
    const throttled = this.#throttled;
    const made: TenantSeries = {
      label,
      admitted: () => {
        admitted.inc();
        inFlight.inc();
      },
      throttled: (reason) => throttled.labels(label, reason).inc(),
      answered: (queueNs) => {
        inFlight.dec();
        if (queueNs !== undefined) queue.observe(queueNs / 1e9);
      },
    };
    this.#series.set(label, made);
    return made;
  }
}
