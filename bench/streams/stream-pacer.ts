// Real-time pacing of many audio streams against one step function, shared by every target (the
// server over WebSocket or HTTP, and the in-process naive loop), so they are paced identically.
// Stream s sends chunk k at its tick t0 + phase(s) + k·32 ms, or as soon as its previous chunk is
// answered if that is later: a live microphone buffers audio while an answer is late, and the
// stream catches up by sending at once. Phases are spread evenly over one period so the load is
// smooth rather than 32 ms bursts. Latency is send -> answer of each step sent inside the
// measurement window; when the window closes, each stream ends its open sequence with one last
// (unmeasured) chunk flagged `sequence_end`, so no sequence is left for the server's idle timer.

import { SequenceIds, StreamCursor, type ClipChunks, type StreamStep } from './speech-tape.js';

/** Sends one step and resolves when it is answered; rejects when the answer is an error. */
export type StepFunction = (stream: number, step: StreamStep) => Promise<void>;

export interface PacingOptions {
  readonly streams: number;
  readonly periodMs: number;
  readonly warmupMs: number;
  readonly measureMs: number;
  /** First sequence id of this run (distinct per probe, so ids never collide with older runs). */
  readonly idBase: number;
}

export interface PacedWindow {
  /** Step latencies (ms) of the steps sent inside the measurement window. */
  readonly latenciesMs: Float64Array;
  /** Steps answered inside the window, per second. */
  readonly stepsPerSecond: number;
  readonly errors: number;
  readonly firstError: string | null;
  readonly windowMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runPaced(
  tape: readonly ClipChunks[],
  options: PacingOptions,
  step: StepFunction,
): Promise<PacedWindow> {
  const ids = new SequenceIds(options.idBase);
  const t0 = performance.now() + 20;
  const measureFrom = t0 + options.warmupMs;
  const measureTo = measureFrom + options.measureMs;
  // Growing plain array: a probe records at most streams x window / period values.
  const latencies: number[] = [];
  let answeredInWindow = 0;
  let errors = 0;
  let firstError: string | null = null;

  const send = async (s: number, next: StreamStep, measured: boolean): Promise<void> => {
    const sent = performance.now();
    try {
      await step(s, next);
    } catch (e) {
      errors += measured ? 1 : 0;
      firstError ??= e instanceof Error ? e.message : String(e);
      return;
    }
    const got = performance.now();
    if (measured) latencies.push(got - sent);
    if (got >= measureFrom && got < measureTo) answeredInWindow += 1;
  };

  const stream = async (s: number): Promise<void> => {
    const cursor = new StreamCursor(tape, ids, s);
    const phase = (s * options.periodMs) / options.streams;
    for (let k = 0; ; k += 1) {
      const due = t0 + phase + k * options.periodMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const now = performance.now();
      if (now >= measureTo) break;
      await send(s, cursor.next(), now >= measureFrom);
    }
    if (cursor.inSequence) await send(s, cursor.next(true), false);
  };

  await Promise.all(Array.from({ length: options.streams }, (_, s) => stream(s)));
  return {
    latenciesMs: Float64Array.from(latencies),
    stepsPerSecond: (answeredInWindow * 1000) / options.measureMs,
    errors,
    firstError,
    windowMs: options.measureMs,
  };
}

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Nearest-rank percentiles of a window's latencies (sorted in place). */
export function summarize(latencies: Float64Array): LatencySummary {
  const n = latencies.length;
  if (n === 0) return { count: 0, p50Ms: NaN, p90Ms: NaN, p99Ms: NaN, maxMs: NaN, meanMs: NaN };
  latencies.sort();
  const at = (q: number): number => latencies[Math.min(n - 1, Math.ceil(q * n) - 1)] as number;
  let sum = 0;
  for (const v of latencies) sum += v;
  return {
    count: n,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: latencies[n - 1] as number,
    meanMs: sum / n,
  };
}
