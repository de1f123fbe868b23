// The pass/fail checks of a validation: each threshold held against what was measured, one row per
// output or batch size, plus the fit and run checks that stop a validation early. Pure.

import type { OutputAgreement } from '../compare/agreement.js';
import type { BatchLatency } from './latency.js';
import type { Thresholds } from './thresholds.js';

export interface Check {
  /** The threshold flag, or `signature` / `run`. */
  readonly check: string;
  /** The output, or `batch N`, or the model. */
  readonly subject: string;
  readonly measured: number | string;
  /** `<= 0.0001`, `>= 0.99`. */
  readonly limit: string;
  readonly pass: boolean;
}

const atMost = (check: string, subject: string, measured: number, limit: number): Check => ({
  check,
  subject,
  measured,
  limit: `<= ${limit}`,
  pass: measured <= limit,
});

const atLeast = (check: string, subject: string, measured: number, limit: number): Check => ({
  check,
  subject,
  measured,
  limit: `>= ${limit}`,
  pass: measured >= limit,
});

export function agreementChecks(agreement: readonly OutputAgreement[], t: Thresholds): Check[] {
  const out: Check[] = [];
  for (const a of agreement) {
    const o = a.output;
    if (a.shapeMismatch !== undefined) {
      out.push({
        check: 'output-shape',
        subject: o,
        measured: a.shapeMismatch,
        limit: 'same as serving',
        pass: false,
      });
      continue;
    }
    if (a.equalShare !== undefined) out.push(atLeast('equal-elements', o, a.equalShare, 1));
    if (a.maxAbsDiff !== undefined) out.push(atMost('max-abs-diff', o, a.maxAbsDiff, t.maxAbsDiff));
    if (a.relDiff !== undefined) out.push(atMost('max-rel-diff', o, a.relDiff, t.maxRelDiff));
    if (a.minCosine !== undefined) out.push(atLeast('min-cosine', o, a.minCosine, t.minCosine));
    if (a.classifier !== undefined) {
      out.push(atLeast('min-top1', o, a.classifier.top1, t.minTop1));
      out.push(atLeast('min-topk', o, a.classifier.topk, t.minTopk));
    }
  }
  return out;
}

export function latencyChecks(latency: readonly BatchLatency[], t: Thresholds): Check[] {
  const out: Check[] = [];
  // A ratio past its limit passes when the candidate is slower by no more than the floor: a
  // model that runs in microseconds has ratios that noise alone moves.
  const ratio = (
    check: string,
    batch: number,
    measured: number,
    limit: number,
    slowerMs: number,
  ): Check => ({
    check,
    subject: `batch ${batch}`,
    measured,
    limit: `<= ${limit} (or <= ${t.latencyFloorMs} ms slower)`,
    pass: measured <= limit || slowerMs <= t.latencyFloorMs,
  });
  for (const l of latency) {
    const b = l.batchSize;
    out.push(
      ratio('max-p50-ratio', b, l.p50Ratio, t.maxP50Ratio, l.candidate.p50Ms - l.serving.p50Ms),
    );
    if (Number.isFinite(t.maxP99Ratio)) {
      out.push(
        ratio('max-p99-ratio', b, l.p99Ratio, t.maxP99Ratio, l.candidate.p99Ms - l.serving.p99Ms),
      );
    }
  }
  return out;
}
