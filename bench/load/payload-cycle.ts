// Round-robin over the prebuilt requests (one per --input-data entry): HTTP request bytes, or
// WebSocket frame templates. Threads start at different offsets so a multi-entry data file is
// spread evenly even at low concurrency.

export class PayloadCycle<T = Buffer> {
  private index: number;

  constructor(
    private readonly requests: readonly T[],
    offset = 0,
  ) {
    if (requests.length === 0) throw new Error('no request payloads');
    this.index = offset % requests.length;
  }

  next(): T {
    const r = this.requests[this.index] as T;
    this.index = (this.index + 1) % this.requests.length;
    return r;
  }
}
