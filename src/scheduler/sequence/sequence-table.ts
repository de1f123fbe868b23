// The live sequences of one sequence-batched model version: which correlation ids are open, which
// state slot each holds (or that it waits in the backlog for one), how many of its requests are
// queued, whether one is running, and when it was last active. Slots are handed out in order of
// START arrival, as Triton does: a START finding no free slot puts its sequence in the backlog,
// and a released slot goes to the oldest backlogged sequence. A sequence is released at its END,
// or after `max_sequence_idle_microseconds` with nothing queued or running. No timers of its own
// beyond the one idle timer, armed on the injected clock.

import { fail } from '../../errors.js';
import type { SchedulerClock, TimerHandle } from '../scheduler-clock.js';
import type { SequenceFields } from '../validated-request.js';

/** One sequence, from its START until it is released. */
export interface SequenceRecord {
  readonly id: number | string;
  /** Its state slot, or -1 while it waits in the backlog. */
  slot: number;
  /** Admitted requests not yet running (or answered without running). */
  queued: number;
  /** One of its requests is executing (a sequence runs one request at a time, in order). */
  running: boolean;
  /** Its END was admitted, or a new START took its id: it takes no requests by id any more. */
  closed: boolean;
  /** Released: its slot is free (or was never held) and nothing of it may run. */
  released: boolean;
  /** Last enqueue or finished run, for the idle timeout. */
  lastActiveNs: number;
}

export interface SequenceTableSettings {
  readonly model: string;
  /** State slots: sequences that can be scheduled at once. */
  readonly slots: number;
  /** Sequences with a slot or in the backlog; a START beyond this is refused (SEQUENCE_LIMIT). */
  readonly maxLive: number;
  readonly idleNs: number;
  readonly clock: SchedulerClock;
  /** A slot changed hands or a sequence was released: the scheduler may plan again. */
  readonly changed: () => void;
  /** A sequence was released after its idle time (logged and counted by the caller). */
  readonly idleReleased?: (id: number | string) => void;
}

export class SequenceTable {
  /** Open sequences by correlation id (closed ones are no longer here, though maybe not released). */
  private readonly byId = new Map<string | number, SequenceRecord>();
  /** Sequences holding a slot or waiting for one, for the live count. */
  private live = 0;
  private readonly freeSlots: number[];
  private readonly backlog: SequenceRecord[] = [];
  /** Records with nothing queued or running, oldest activity first (a Map keeps insertion order). */
  private readonly idle = new Map<SequenceRecord, number>();
  private idleTimer: { readonly atNs: number; readonly handle: TimerHandle } | undefined;

  constructor(private readonly settings: SequenceTableSettings) {
    // Popped from the end: slot 0 first, so a direct batch's rows stay low and few.
    this.freeSlots = Array.from({ length: settings.slots }, (_, i) => settings.slots - 1 - i);
  }

  /** Sequences holding a slot or waiting in the backlog. */
  get liveCount(): number {
    return this.live;
  }

  get slotsInUse(): number {
    return this.settings.slots - this.freeSlots.length;
  }

  /** Slots in [from, to) held by a sequence. */
  occupiedIn(from: number, to: number): number {
    return to - from - this.freeSlots.filter((s) => s >= from && s < to).length;
  }

  get backlogLength(): number {
    return this.backlog.length;
  }

  /**
   * The record a request joins, in Triton's words when it cannot: a request that is not a START
   * needs an open sequence; a START with the id of an open one closes that one (its queued
   * requests still run first) and opens a new one.
   */
  admit(seq: SequenceFields): SequenceRecord {
    const key = seq.id;
    let rec = this.byId.get(key);
    if (!seq.start && rec === undefined) {
      throw fail(
        'SEQUENCE_NOT_STARTED',
        `inference request for sequence ${String(seq.id)} to model '${this.settings.model}' must specify the START flag on the first request of the sequence`,
      );
    }
    if (seq.start) {
      if (rec !== undefined) this.close(rec);
      if (this.live >= this.settings.maxLive) {
        throw fail(
          'SEQUENCE_LIMIT',
          `model '${this.settings.model}' has ${this.live} live sequences, its limit: end a sequence (sequence_end) or wait for an idle one to be released after max_sequence_idle_microseconds`,
        );
      }
      rec = this.open(seq.id);
    }
    const r = rec as SequenceRecord;
    r.queued += 1;
    r.lastActiveNs = this.settings.clock.nowNs();
    this.idle.delete(r);
    if (seq.end) this.close(r);
    return r;
  }

  /** One of the record's requests starts running. */
  dispatched(rec: SequenceRecord): void {
    rec.queued -= 1;
    rec.running = true;
  }

  /** Its running request finished. */
  finished(rec: SequenceRecord): void {
    rec.running = false;
    rec.lastActiveNs = this.settings.clock.nowNs();
    this.settle(rec);
  }

  /** One of its queued requests left without running. */
  left(rec: SequenceRecord): void {
    rec.queued -= 1;
    this.settle(rec);
  }

  private open(id: number | string): SequenceRecord {
    const rec: SequenceRecord = {
      id,
      slot: -1,
      queued: 0,
      running: false,
      closed: false,
      released: false,
      lastActiveNs: this.settings.clock.nowNs(),
    };
    this.byId.set(id, rec);
    this.live += 1;
    const slot = this.freeSlots.pop();
    if (slot === undefined) this.backlog.push(rec);
    else rec.slot = slot;
    return rec;
  }

  /** No request finds it by id any more; it is released once nothing of it is left. */
  private close(rec: SequenceRecord): void {
    rec.closed = true;
    if (this.byId.get(rec.id) === rec) this.byId.delete(rec.id);
  }

  /** Nothing queued or running: released if closed, else idle from now. */
  private settle(rec: SequenceRecord): void {
    if (rec.queued > 0 || rec.running || rec.released) return;
    if (rec.closed) {
      this.release(rec);
      return;
    }
    this.idle.delete(rec);
    this.idle.set(rec, rec.lastActiveNs);
    this.armIdle();
  }

  private release(rec: SequenceRecord): void {
    rec.released = true;
    this.idle.delete(rec);
    this.close(rec);
    this.live -= 1;
    if (rec.slot < 0) {
      const at = this.backlog.indexOf(rec);
      if (at >= 0) this.backlog.splice(at, 1);
    } else {
      const slot = rec.slot;
      const next = this.backlog.shift();
      if (next === undefined) this.freeSlots.push(slot);
      else next.slot = slot;
    }
    this.settings.changed();
  }

  /** One timer, at the oldest idle record's deadline. */
  private armIdle(): void {
    const first = this.idle.values().next();
    const atNs = first.done === true ? undefined : first.value + this.settings.idleNs;
    if (this.idleTimer?.atNs === atNs) return;
    this.idleTimer?.handle.cancel();
    this.idleTimer = undefined;
    if (atNs === undefined) return;
    const clock = this.settings.clock;
    const handle = clock.setTimer(Math.max(0, atNs - clock.nowNs()), () => {
      this.idleTimer = undefined;
      this.reap();
    });
    this.idleTimer = { atNs, handle };
  }

  private reap(): void {
    const now = this.settings.clock.nowNs();
    for (const [rec, lastNs] of this.idle) {
      if (now - lastNs < this.settings.idleNs) break;
      this.release(rec);
      this.settings.idleReleased?.(rec.id);
    }
    this.armIdle();
  }

  /** Cancels the idle timer (the version is unloading). */
  dispose(): void {
    this.idleTimer?.handle.cancel();
    this.idleTimer = undefined;
  }
}
