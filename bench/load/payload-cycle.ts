// Round-robin over the prebuilt request buffers (one per --input-data entry). Threads start at
// different offsets so a multi-entry data file is spread evenly even at low concurrency.

export class PayloadCycle {
  private index: number;

  constructor(
    private readonly requests: readonly Buffer[],
    offset = 0,
  ) {
    if (requests.length === 0) throw new Error('no request payloads');
    this.index = offset % requests.length;
  }

  next(): Buffer {
    const r = this.requests[this.index] as Buffer;
    this.index = (this.index + 1) % this.requests.length;
    return r;
  }
}
