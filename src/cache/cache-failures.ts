// What a remote response cache's failures leave behind: each failed lookup or insert counted (the
// request itself was served by the model), and a WARN log at most once per interval per operation,
// saying how many failed since the last one, so a Redis that is down for an hour logs a line a
// minute, not one per request. The clock is injected so the rate limit is tested without waiting.

import type { Logger } from '../logger.js';

export type CacheOp = 'lookup' | 'insert';

export interface CacheFailureOptions {
  /** Counts one failure of `op` (infernode_cache_errors_total{op}). */
  readonly count: (op: CacheOp) => void;
  readonly logger: Pick<Logger, 'warn'>;
  /** Least time between two WARN lines of one operation (ms). */
  readonly intervalMs: number;
  /** Monotonic ms. */
  readonly now?: () => number;
}

export class CacheFailures {
  private readonly lastLogAt = new Map<CacheOp, number>();
  private readonly unlogged = new Map<CacheOp, number>();
  private readonly now: () => number;

  constructor(private readonly options: CacheFailureOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** One failed operation: counted always, logged when the interval since the last line passed. */
  failed(op: CacheOp, error: unknown): void {
    this.options.count(op);
    const missed = (this.unlogged.get(op) ?? 0) + 1;
    const now = this.now();
    const last = this.lastLogAt.get(op);
    if (last !== undefined && now - last < this.options.intervalMs) {
      this.unlogged.set(op, missed);
      return;
    }
    this.lastLogAt.set(op, now);
    this.unlogged.set(op, 0);
    const reason = error instanceof Error ? error.message : String(error);
    this.options.logger.warn(
      { op, failures: missed },
      `response cache ${op} failed (${reason.slice(0, 300)}); the request was served by the model` +
        (missed > 1 ? ` (${missed} ${op} failures since the last such line)` : ''),
    );
  }
}
