// Plain-number tallies of one model version's Prometheus series, handed to prom-client only when
// the metrics are scraped. Why: a prom-client child (`family.labels(...)`) is a closure over the
// label object, and every inc/observe on it still validates the labels and hashes them into a key
// string (about 0.3 µs each; a request made ~14 such calls). Here the hot path adds to a number or
// one bucket count; each family's `collect()` (run by prom-client before it renders the family)
// moves what accumulated into its series, so names, labels and values on /metrics are unchanged.

import type { Counter, Gauge, Histogram } from 'prom-client';
import { fail } from '../errors.js';

export type SeriesLabels = Readonly<{ model: string; version: string }> &
  Readonly<Record<string, string>>;

/**
 * A counter or gauge series' change since the last scrape. `touched` mirrors prom-client's rule that
 * a series exists once it has been incremented at all (even by 0), so a scrape shows exactly the
 * series it showed before.
 */
export class DeltaCell {
  #delta = 0;
  #touched = false;

  add(value: number): void {
    this.#delta += value;
    this.#touched = true;
  }

  /** Into a counter (deltas are never negative there) or a gauge (inc/dec of a shared series). */
  flush(family: Counter<string> | Gauge<string>, labels: Readonly<Record<string, string>>): void {
    if (!this.#touched) return;
    family.inc(labels, this.#delta);
    this.#delta = 0;
  }
}

/** prom-client 15's record of one histogram series (`Histogram.hashMap`'s values). */
interface PromHistogramSeries {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/** Observations of one histogram series since the last scrape, by bucket (not cumulative). */
export class HistogramCell {
  readonly #bounds: readonly number[];
  /** [i]: observations with bounds[i-1] < v <= bounds[i]; above the last bound only `count` grows. */
  readonly #counts: Float64Array;
  #sum = 0;
  #count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.#counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    // prom-client's findBound: the first bound the value does not exceed.
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.#counts[i] as number) += 1;
        break;
      }
    }
    this.#sum += value;
    this.#count += 1;
  }

  /**
   * Adds the pending observations to the family's series for `labels`. prom-client has no public
   * way to add counts to a histogram series, so this writes into its series record (created, as
   * `observe` would, by `zero`); the metrics integration tests pin the rendered result.
   */
  flush(family: Histogram<string>, labels: SeriesLabels): void {
    if (this.#count === 0) return;
    const series = histogramSeries(family, labels);
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      const bound = bounds[i] as number;
      series.bucketValues[bound] = (series.bucketValues[bound] ?? 0) + (this.#counts[i] as number);
    }
    series.sum += this.#sum;
    series.count += this.#count;
    this.#counts.fill(0);
    this.#sum = 0;
    this.#count = 0;
  }
}

function histogramSeries(family: Histogram<string>, labels: SeriesLabels): PromHistogramSeries {
  const find = (): PromHistogramSeries | undefined =>
    Object.values(
      (family as unknown as { hashMap: Record<string, PromHistogramSeries> }).hashMap,
    ).find(
      (s) => s.labels['model'] === labels.model && String(s.labels['version']) === labels.version,
    );
  const found = find();
  if (found !== undefined) return found;
  family.zero({ ...labels });
  const created = find();
  if (created === undefined) {
    throw fail(
      'INTERNAL',
      `metrics: expected prom-client's zero() to create the series ${labels.model}/${labels.version}, found none`,
    );
  }
  return created;
}
