// The Prometheus families of shadow versions (dataplane/shadow-runner.ts): what happened to each
// sampled request, how far the shadow's outputs were from the answer given, how often a classifier's
// top-1 agreed, and how long the shadow took against the serving version. Registered on the
// catalog's registry the first time a shadow reports, so servers without shadows export nothing
// new. Label lookups are fine here: only sampled re-runs report, after the client has its answer.

import { Counter, Gauge, Summary, type Registry } from 'prom-client';

export type ShadowOutcome = 'compared' | 'dropped' | 'failed';

/** Labels of one shadowed pair: the model, the version that answered and its shadow. */
export type ShadowPair = Readonly<{ model: string; version: string; shadow_version: string }>;

const PERCENTILES = [0.5, 0.9, 0.99, 1];
/** Quantiles over a sliding window, so a fixed shadow shows up within minutes. */
const WINDOW = { maxAgeSeconds: 600, ageBuckets: 5 } as const;

interface Families {
  readonly requests: Counter<string>;
  readonly maxAbsDiff: Summary<string>;
  readonly top1: Gauge<string>;
  readonly latencyRatio: Summary<string>;
}

export class ShadowMetrics {
  #families: Families | undefined;
  /** Rows compared and rows whose top-1 agreed, per pair and output, since the server started. */
  readonly #top1 = new Map<string, { rows: number; agreed: number }>();

  constructor(private readonly registry: Registry) {}

  count(pair: ShadowPair, outcome: ShadowOutcome): void {
    this.families().requests.inc({ ...pair, outcome });
  }

  /** One compared request: per output, its largest absolute difference and classifier top-1. */
  compared(
    pair: ShadowPair,
    outputs: readonly {
      output: string;
      maxAbsDiff?: number;
      top1?: { rows: number; agreed: number };
    }[],
    latencyRatio: number,
  ): void {
    const f = this.families();
    f.requests.inc({ ...pair, outcome: 'compared' });
    for (const o of outputs) {
      const labels = { ...pair, output: o.output };
      if (o.maxAbsDiff !== undefined) f.maxAbsDiff.observe(labels, o.maxAbsDiff);
      if (o.top1 !== undefined) {
        const key = `${pair.model}\0${pair.version}\0${pair.shadow_version}\0${o.output}`;
        const t = this.#top1.get(key) ?? { rows: 0, agreed: 0 };
        t.rows += o.top1.rows;
        t.agreed += o.top1.agreed;
        this.#top1.set(key, t);
        f.top1.set(labels, t.rows === 0 ? 1 : t.agreed / t.rows);
      }
    }
    if (Number.isFinite(latencyRatio)) f.latencyRatio.observe(pair, latencyRatio);
  }

  private families(): Families {
    if (this.#families !== undefined) return this.#families;
    const pairLabels = ['model', 'version', 'shadow_version'];
    const registers = [this.registry];
    this.#families = {
      requests: new Counter({
        name: 'infernode_shadow_requests_total',
        help: 'Sampled requests re-run on a shadow version, by outcome (compared, dropped under load or when its queue was full, failed)',
        labelNames: [...pairLabels, 'outcome'],
        registers,
      }),
      maxAbsDiff: new Summary({
        name: 'infernode_shadow_max_abs_diff',
        help: "Largest absolute difference between a shadow's output and the answer given, per request (10-minute window)",
        labelNames: [...pairLabels, 'output'],
        percentiles: PERCENTILES,
        ...WINDOW,
        registers,
      }),
      top1: new Gauge({
        name: 'infernode_shadow_top1_agreement',
        help: 'Share of compared rows whose top-1 class the shadow agreed on (classifier outputs), since start',
        labelNames: [...pairLabels, 'output'],
        registers,
      }),
      latencyRatio: new Summary({
        name: 'infernode_shadow_latency_ratio',
        help: "A shadow run's time over the answering version's time for the same request (10-minute window)",
        labelNames: pairLabels,
        percentiles: PERCENTILES,
        ...WINDOW,
        registers,
      }),
    };
    return this.#families;
  }
}
