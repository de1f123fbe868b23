// A token bucket on an injected clock: `rps` tokens a second up to `burst`. Pure arithmetic, so the
// refill is tested without timers; the gate (tenant-gate.ts) passes process.hrtime as the clock.

export class TokenBucket {
  #tokens: number;
  #lastNs: number;

  constructor(
    readonly rps: number,
    readonly burst: number,
    nowNs: number,
    /** Tokens carried over from the bucket this one replaces (a reload); capped at `burst`. */
    tokens: number = burst,
  ) {
    this.#tokens = Math.min(burst, tokens);
    this.#lastNs = nowNs;
  }

  /** Tokens now, after refilling up to `nowNs`. */
  tokens(nowNs: number): number {
    if (nowNs > this.#lastNs) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((nowNs - this.#lastNs) * this.rps) / 1e9);
      this.#lastNs = nowNs;
    }
    return this.#tokens;
  }

  /** True and one token taken when there is one; false (nothing taken) otherwise. */
  take(nowNs: number): boolean {
    if (this.tokens(nowNs) < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Gives back a token taken by a request that another limit then refused. */
  refund(): void {
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  /** Whole seconds until a token is there (at least 1): what Retry-After says. */
  retryAfterS(nowNs: number): number {
    const missing = 1 - this.tokens(nowNs);
    return Math.max(1, Math.ceil(missing / this.rps));
  }

  /** Milliseconds until a token is there (at least 1): WebSocket and gRPC's retry field. */
  retryAfterMs(nowNs: number): number {
    const missing = 1 - this.tokens(nowNs);
    return Math.max(1, Math.ceil((missing / this.rps) * 1000));
  }
}
