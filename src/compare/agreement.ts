// How closely a candidate's outputs agree with the serving version's, per output, accumulated over
// samples: pure arithmetic over HostTensors, no ORT. `infernode validate` and shadow versions
// (dataplane/shadow-runner.ts) both use it. Numbers are compared as float64 (FP16 and BF16 decoded
// first); BYTES outputs count equal elements. A NaN on one side only counts as an infinite
// difference; NaN on both sides as agreement.

import { asNumbers, isFloat, type HostTensor } from './host-tensor.js';
import type { Datatype } from '../tensor/datatypes.js';

/** Where the largest difference was, quoted in the report. */
export interface WorstElement {
  readonly sample: string;
  /** Row within the sample, and the element's index within the row. */
  readonly row: number;
  readonly index: number;
  readonly serving: number;
  readonly candidate: number;
}

export interface OutputAgreement {
  readonly output: string;
  readonly datatype: Datatype;
  /** Elements compared. */
  readonly elements: number;
  readonly rows: number;
  /** Numeric outputs only. */
  readonly maxAbsDiff?: number;
  readonly meanAbsDiff?: number;
  /** ||candidate - serving||2 / ||serving||2 over the whole output. */
  readonly relDiff?: number;
  readonly worst?: WorstElement;
  /** Floating-point outputs only: per-row cosine similarity. */
  readonly minCosine?: number;
  readonly meanCosine?: number;
  /** Classifier outputs (floating point, one fixed [C] vector per row, C >= 2). */
  readonly classifier?: {
    readonly classes: number;
    readonly k: number;
    readonly top1: number;
    readonly topk: number;
  };
  /** BYTES outputs: share of equal elements. */
  readonly equalShare?: number;
  /** Set when the two outputs' shapes differ in some sample; nothing else is then compared. */
  readonly shapeMismatch?: string;
}

/** Accumulates one output over the samples. */
export class AgreementAccumulator {
  private elements = 0;
  private rows = 0;
  private maxAbs = 0;
  private sumAbs = 0;
  private sumSqDiff = 0;
  private sumSqRef = 0;
  private worst: WorstElement | undefined;
  private minCos = Infinity;
  private sumCos = 0;
  private cosRows = 0;
  private top1 = 0;
  private topk = 0;
  private classes = 0;
  private equal = 0;
  private shapeMismatch: string | undefined;

  constructor(
    readonly output: string,
    readonly datatype: Datatype,
    private readonly topK: number,
  ) {}

  add(sample: string, serving: HostTensor, candidate: HostTensor, batched: boolean): void {
    if (this.shapeMismatch !== undefined) return;
    const sShape = `[${serving.dims.join(',')}]`;
    const cShape = `[${candidate.dims.join(',')}]`;
    if (sShape !== cShape || serving.datatype !== candidate.datatype) {
      this.shapeMismatch = `${sample}: serving gave ${serving.datatype} ${sShape}, candidate ${candidate.datatype} ${cShape}`;
      return;
    }
    const rows = batched ? (serving.dims[0] ?? 1) : 1;
    const total = serving.data.length;
    const perRow = rows === 0 ? 0 : total / rows;
    this.rows += rows;
    this.elements += total;
    const s = asNumbers(serving);
    const c = asNumbers(candidate);
    if (s === undefined || c === undefined) {
      const sd = serving.data as readonly string[];
      const cd = candidate.data as readonly string[];
      for (let i = 0; i < total; i++) if (sd[i] === cd[i]) this.equal++;
      return;
    }
    for (let i = 0; i < total; i++) {
      const a = s[i] as number;
      const b = c[i] as number;
      const d =
        Number.isNaN(a) && Number.isNaN(b)
          ? 0
          : Number.isNaN(a) || Number.isNaN(b)
            ? Infinity
            : Math.abs(a - b);
      this.sumAbs += d;
      this.sumSqDiff += d * d;
      if (Number.isFinite(a)) this.sumSqRef += a * a;
      if (this.worst === undefined || d > this.maxAbs) {
        this.maxAbs = Math.max(this.maxAbs, d);
        const row = perRow === 0 ? 0 : Math.floor(i / perRow);
        this.worst = { sample, row, index: i - row * perRow, serving: a, candidate: b };
      }
    }
    if (!isFloat(serving.datatype)) return;
    const classifier = perRow >= 2 && serving.dims.length === (batched ? 2 : 1);
    if (classifier) this.classes = perRow;
    for (let r = 0; r < rows; r++) {
      const sa = s.subarray(r * perRow, (r + 1) * perRow);
      const ca = c.subarray(r * perRow, (r + 1) * perRow);
      const cos = cosine(sa, ca);
      this.minCos = Math.min(this.minCos, cos);
      this.sumCos += cos;
      this.cosRows++;
      if (classifier) {
        const k = this.kFor(perRow);
        const st = topIndices(sa, k);
        const ct = topIndices(ca, k);
        if (st[0] === ct[0]) this.top1++;
        if (sameSet(st, ct)) this.topk++;
      }
    }
  }

  private kFor(classes: number): number {
    return Math.max(1, Math.min(this.topK, classes - 1));
  }

  result(): OutputAgreement {
    const base = {
      output: this.output,
      datatype: this.datatype,
      elements: this.elements,
      rows: this.rows,
    };
    if (this.shapeMismatch !== undefined) return { ...base, shapeMismatch: this.shapeMismatch };
    if (this.datatype === 'BYTES')
      return { ...base, equalShare: this.elements === 0 ? 1 : this.equal / this.elements };
    const relDiff =
      this.sumSqRef === 0
        ? this.sumSqDiff === 0
          ? 0
          : Infinity
        : Math.sqrt(this.sumSqDiff / this.sumSqRef);
    return {
      ...base,
      maxAbsDiff: this.maxAbs,
      meanAbsDiff: this.elements === 0 ? 0 : this.sumAbs / this.elements,
      relDiff,
      ...(this.worst !== undefined && { worst: this.worst }),
      ...(this.cosRows > 0 && { minCosine: this.minCos, meanCosine: this.sumCos / this.cosRows }),
      ...(this.classes > 0 && {
        classifier: {
          classes: this.classes,
          k: this.kFor(this.classes),
          top1: this.top1 / this.cosRows,
          topk: this.topk / this.cosRows,
        },
      }),
    };
  }
}

/** Cosine similarity; 1 for two all-zero rows (they agree), 0 when only one is zero. */
export function cosine(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 && nb === 0) return 1;
  if (na === 0 || nb === 0) return 0;
  const c = dot / Math.sqrt(na * nb);
  return Number.isNaN(c) ? 0 : Math.min(1, Math.max(-1, c));
}

/** Indices of the k largest values, largest first (ties: lower index first). */
export function topIndices(a: Float64Array, k: number): number[] {
  const idx = Array.from(a.keys());
  idx.sort((i, j) => (a[j] as number) - (a[i] as number) || i - j);
  return idx.slice(0, k);
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  const s = new Set(a);
  return a.length === b.length && b.every((x) => s.has(x));
}
