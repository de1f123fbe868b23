// Load on several servers at once from one generator thread (bench:compare's N-process reference:
// N infernode processes on N ports). The thread's share of a level is split again over one engine
// per server, each built from its own settings (its address, and requests built for it); they
// record into the thread's one recorder, so the window's count is the servers' sum and its
// histogram holds every server's latencies. One server: the plain engine, nothing in between.

import type { LoadEngine } from './load-engine.js';
import type { LoadShare } from './messages.js';
import type { WindowRecorder } from './window-recorder.js';

/** Engine settings for several servers: one entry per server, each a whole engine's settings. */
export interface ShardedInit<E> {
  readonly shards: readonly E[];
}

export function isSharded<E>(init: E | ShardedInit<E>): init is ShardedInit<E> {
  return (
    typeof init === 'object' &&
    init !== null &&
    Array.isArray((init as Partial<ShardedInit<E>>).shards)
  );
}

/**
 * A thread's share split over `servers` servers: concurrency by whole connections, a rate evenly.
 * Thread `threadIndex` starts its round at server `threadIndex % servers`, so the remainders of
 * several threads (2 threads at concurrency 2 over 2 servers: one connection each) land on
 * different servers rather than all on the first. Entry i is server i's share.
 */
export function splitShare(share: LoadShare, servers: number, threadIndex = 0): LoadShare[] {
  const n = Math.max(1, servers);
  return Array.from({ length: n }, (_, server): LoadShare => {
    // This server's position in the thread's round.
    const i = (server - (threadIndex % n) + n) % n;
    switch (share.kind) {
      case 'concurrency':
        return {
          kind: 'concurrency',
          concurrency: Math.floor(share.concurrency / n) + (i < share.concurrency % n ? 1 : 0),
        };
      case 'request-rate':
        // Each server gets every nth of the thread's arrivals: a constant stream offset by a
        // further i/n of the thread's interval, and its own Poisson stream (their sum is Poisson).
        return {
          kind: 'request-rate',
          rate: share.rate / n,
          distribution: share.distribution,
          seed: share.seed * 1009 + i,
          phase: (share.phase + i) / n,
        };
    }
  });
}

const carries = (s: LoadShare): boolean =>
  s.kind === 'concurrency' ? s.concurrency > 0 : s.rate > 0;

export class ShardedEngine implements LoadEngine {
  /** The engines started for the current level (a server with no share is left idle). */
  private running: LoadEngine[] = [];

  constructor(
    private readonly engines: readonly LoadEngine[],
    private readonly threadIndex: number,
  ) {
    if (engines.length === 0) throw new Error('a sharded engine needs at least one server');
  }

  async start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    const shares = splitShare(share, this.engines.length, this.threadIndex);
    this.running = this.engines.filter((_, i) => carries(shares[i] as LoadShare));
    await Promise.all(
      this.engines.flatMap((e, i) => {
        const s = shares[i] as LoadShare;
        return carries(s) ? [e.start(s, recorder)] : [];
      }),
    );
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = [];
    await Promise.all(running.map((e) => e.stop()));
  }

  inFlight(): number {
    return this.running.reduce((n, e) => n + e.inFlight(), 0);
  }

  queued(): number {
    return this.running.reduce((n, e) => n + e.queued(), 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close()));
  }
}

/** The engine for `init`: `make` itself for one server's settings, a ShardedEngine for several. */
export function shardedEngine<E>(
  init: E | ShardedInit<E>,
  threadIndex: number,
  make: (init: E) => LoadEngine,
): LoadEngine {
  if (!isSharded(init)) return make(init);
  const engines = init.shards.map(make);
  return engines.length === 1
    ? (engines[0] as LoadEngine)
    : new ShardedEngine(engines, threadIndex);
}
