// `preserve_ordering`: execution results are released in the order their requests arrived, even
// when batches on two instances finish out of order. A request that leaves the queue early (timed
// out, cancelled) is answered at once and just frees its place in the order, so a prompt 503 is
// never held behind a running batch.

export class ResponseOrder {
  private next = 0;
  private released = 0;
  private readonly held = new Map<number, () => void>();

  /** @param enabled false: every settle runs at once (no ordering to keep). */
  constructor(private readonly enabled: boolean) {}

  /** Takes the next place in the order (call once per accepted request, in arrival order). */
  reserve(): number {
    return this.next++;
  }

  /** Runs `settle` when every earlier place has been settled (at once when ordering is off). */
  settle(place: number, settle: () => void): void {
    if (!this.enabled) {
      settle();
      return;
    }
    this.held.set(place, settle);
    for (let s = this.held.get(this.released); s !== undefined; s = this.held.get(this.released)) {
      this.held.delete(this.released);
      this.released += 1;
      s();
    }
  }

  /** Results held back behind an earlier request still executing. */
  get heldCount(): number {
    return this.held.size;
  }
}
