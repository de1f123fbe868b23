// The messages of the load generator. Two boundaries use them:
//   orchestrator --(child-process IPC)--> driver process --(MessagePort)--> load threads
// Each side answers every command with exactly one reply, in order, so both sides pair replies
// with commands by position (a FIFO) instead of by id. Windows carry their latencies as encoded
// HDR histograms so the orchestrator can merge them exactly.

import type { RequestDistribution } from '../options/bench-options.js';

/** One level of load for the whole generator. */
export type LoadLevel =
  | { readonly kind: 'concurrency'; readonly concurrency: number }
  | {
      readonly kind: 'request-rate';
      readonly rate: number;
      readonly distribution: RequestDistribution;
      readonly seed: number;
    };

/** One thread's part of a level. */
export type LoadShare =
  | { readonly kind: 'concurrency'; readonly concurrency: number }
  | {
      readonly kind: 'request-rate';
      readonly rate: number;
      readonly distribution: RequestDistribution;
      readonly seed: number;
      /** Fraction of one interval by which this thread's constant arrivals are offset. */
      readonly phase: number;
    };

/** What one thread measured between two snapshots. Times are epoch ms (comparable across threads). */
export interface ThreadWindow {
  readonly startMs: number;
  readonly endMs: number;
  readonly completed: number;
  readonly errors: number;
  /** Latencies of the completed requests, µs, HdrHistogram compressed base64. */
  readonly histogram: string;
  readonly sendUsSum: number;
  readonly recvUsSum: number;
  /** Open loop: the latest any request was sent after its intended time, µs. */
  readonly maxLagUs: number;
  /** At the snapshot: requests on the wire, and requests waiting client-side for a connection. */
  readonly inFlight: number;
  readonly queued: number;
  readonly errorSample: string | null;
}

/** A whole process's window: its threads merged, plus the process's own CPU time. */
export interface DriverWindow extends ThreadWindow {
  readonly threads: number;
  /** user + system CPU time of the generator process during the window, ms. */
  readonly cpuMs: number;
}

export type ThreadCommand =
  | { readonly type: 'start'; readonly share: LoadShare }
  | { readonly type: 'snapshot' }
  | { readonly type: 'stop' }
  | { readonly type: 'close' };

export type ThreadReply =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | { readonly type: 'window'; readonly window: ThreadWindow }
  | { readonly type: 'stopped' }
  | { readonly type: 'closed' }
  | { readonly type: 'failed'; readonly message: string };

export interface DriverInit<E = unknown> {
  /** Load threads; 0 runs one engine on the driver process's main thread. */
  readonly threads: number;
  /** Engine-specific settings, handed to every thread unchanged. */
  readonly engine: E;
}

export type DriverCommand =
  | { readonly type: 'init'; readonly init: DriverInit }
  | { readonly type: 'start'; readonly level: LoadLevel }
  | { readonly type: 'snapshot' }
  | { readonly type: 'stop' }
  | { readonly type: 'close' };

export type DriverReply =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | { readonly type: 'window'; readonly window: DriverWindow }
  | { readonly type: 'stopped' }
  | { readonly type: 'closed' }
  | { readonly type: 'failed'; readonly message: string };

/** Splits a level across `threads` threads: concurrency by whole connections, rate evenly. */
export function splitLevel(level: LoadLevel, threads: number): LoadShare[] {
  const n = Math.max(1, threads);
  return Array.from({ length: n }, (_, i): LoadShare => {
    switch (level.kind) {
      case 'concurrency':
        return {
          kind: 'concurrency',
          concurrency: Math.floor(level.concurrency / n) + (i < level.concurrency % n ? 1 : 0),
        };
      case 'request-rate':
        // A sum of independent Poisson processes is Poisson with the summed rate, so each thread
        // runs its own stream; constant arrivals are interleaved by phase to stay evenly spaced.
        return {
          kind: 'request-rate',
          rate: level.rate / n,
          distribution: level.distribution,
          seed: level.seed * 1009 + i,
          phase: i / n,
        };
    }
  });
}
