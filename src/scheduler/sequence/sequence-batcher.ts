// The sequence batching strategy (Triton's sequence batcher) inside the one scheduler shell: every
// request belongs to a sequence (its correlation id); a sequence holds a state slot from its START
// to its END or idle timeout; its requests run one at a time, in order; requests of many sequences
// share a batch, with the control inputs filled per row and the implicit state gathered from and
// scattered back to the slots (state-store.ts). `direct` and `oldest` differ only in how batches are
// formed (sequence-plan.ts). The queue policy, aborts, response order and drain are the shell's.

import type { SequenceBatchingConfig } from '../../config/model-config.js';
import { fail, toServerError, type WireError } from '../../errors.js';
import type { RunResponse } from '../../execution/messages.js';
import type { BatchPlan, PlanContext } from '../batch-plan.js';
import { batchKey } from '../batch-tensors.js';
import type { ExecutionTarget } from '../execution-target.js';
import { withRefused } from '../refused-members.js';
import type { SchedulerClock } from '../scheduler-clock.js';
import type { QueuedRequest, RunOutcome, SchedulingStrategy } from '../scheduling-strategy.js';
import type { ValidatedRequest } from '../validated-request.js';
import { checkCorrelationId, controlSpecs, type ControlSpec } from './control-tensors.js';
import { planDirect, planOldest } from './sequence-plan.js';
import { buildSequenceBlock, takeSequenceOutputs, type SequenceMember } from './sequence-run.js';
import { SequenceTable, type SequenceRecord } from './sequence-table.js';
import { StateStore, type StateSpec } from './state-store.js';

export interface SequenceBatcherSettings {
  readonly model: string;
  readonly maxBatchSize: number;
  readonly config: SequenceBatchingConfig;
  /** The implicit states, initial data resolved (see create-scheduler.ts). */
  readonly states: readonly StateSpec[];
  /** Cap on one run's input block. */
  readonly maxBlockBytes: number;
  /** Sequences allowed at once (with a slot or in the backlog); 0: the default (see below). */
  readonly maxLiveSequences?: number;
  readonly clock: SchedulerClock;
  /** Live sequences or slot use changed (metrics). */
  readonly observe?: (s: SequenceCounts) => void;
  /** A sequence was released after max_sequence_idle_microseconds. */
  readonly idleReleased?: (id: number | string) => void;
}

export interface SequenceCounts {
  readonly live: number;
  readonly slotsInUse: number;
  readonly slots: number;
  readonly backlog: number;
}

/**
 * Default live-sequence cap: every slot, plus a backlog as long again (at least 64). Past it a new
 * START is refused with SEQUENCE_LIMIT instead of waiting in a backlog that grows without bound.
 */
export function defaultMaxLive(slots: number): number {
  return slots + Math.max(slots, 64);
}

export class SequenceBatcher implements SchedulingStrategy {
  private readonly table: SequenceTable;
  private readonly states: StateStore | undefined;
  private readonly controls: readonly ControlSpec[];
  private readonly records = new WeakMap<ValidatedRequest, SequenceRecord>();
  private readonly rowsPerLane: number;
  private readonly slots: number;
  private readonly busyLanes = new Set<number>();
  private wake: () => void = () => undefined;

  constructor(
    private readonly target: ExecutionTarget,
    private readonly settings: SequenceBatcherSettings,
  ) {
    const sb = settings.config;
    this.rowsPerLane = Math.max(settings.maxBatchSize, 1);
    // direct: a lane of max_batch_size slots per instance, as Triton gives each instance its own
    // slots; oldest: max_candidate_sequences (0: as many as direct would have).
    this.slots =
      sb.oldest !== undefined && sb.oldest.max_candidate_sequences > 0
        ? sb.oldest.max_candidate_sequences
        : this.rowsPerLane * target.capacity;
    this.controls = controlSpecs(sb);
    this.states =
      settings.states.length > 0 ? new StateStore(settings.states, this.slots) : undefined;
    this.table = new SequenceTable({
      model: settings.model,
      slots: this.slots,
      maxLive:
        settings.maxLiveSequences !== undefined && settings.maxLiveSequences > 0
          ? settings.maxLiveSequences
          : defaultMaxLive(this.slots),
      idleNs: sb.max_sequence_idle_microseconds * 1000,
      clock: settings.clock,
      changed: () => {
        this.report();
        this.wake();
      },
      ...(settings.idleReleased !== undefined && { idleReleased: settings.idleReleased }),
    });
    this.report(); // the slot count, and zeros, from load
  }

  get capacity(): number {
    return this.target.capacity;
  }

  bindWake(wake: () => void): void {
    this.wake = wake;
  }

  keyOf(request: ValidatedRequest): string {
    return batchKey(request.inputs);
  }

  admit(request: ValidatedRequest): void {
    const seq = request.sequence;
    if (seq === undefined)
      throw fail('INTERNAL', 'a sequence model got a request without a sequence');
    checkCorrelationId(this.controls, this.settings.model, seq.id);
    const before = this.table.liveCount;
    this.records.set(request, this.table.admit(seq));
    if (this.table.liveCount !== before) this.report();
  }

  released(request: ValidatedRequest): void {
    const rec = this.records.get(request);
    if (rec === undefined) return;
    this.records.delete(request);
    this.table.left(rec);
  }

  plan(queue: readonly QueuedRequest[], ctx: PlanContext): BatchPlan {
    const sequenceOf = (q: QueuedRequest): SequenceRecord | undefined =>
      this.records.get(q.request);
    const sb = this.settings.config;
    if (sb.oldest !== undefined) {
      return planOldest(queue, ctx, sequenceOf, {
        maxBatchSize: this.settings.maxBatchSize,
        preferredBatchSizes: sb.oldest.preferred_batch_size,
        maxQueueDelayNs: sb.oldest.max_queue_delay_microseconds * 1000,
      });
    }
    return planDirect(queue, ctx, sequenceOf, {
      rowsPerLane: this.rowsPerLane,
      maxQueueDelayNs: (sb.direct?.max_queue_delay_microseconds ?? 0) * 1000,
      minimumSlotUtilization: sb.direct?.minimum_slot_utilization ?? 0,
      busyLanes: this.busyLanes,
      occupied: (lane) => this.occupiedSlots(lane),
    });
  }

  execute(requests: readonly ValidatedRequest[]): Promise<RunOutcome> {
    const recs = requests.map((r) => {
      const rec = this.records.get(r);
      if (rec === undefined || rec.slot < 0)
        throw fail('INTERNAL', 'a sequence request ran without a slot');
      return rec;
    });
    const direct = this.settings.config.oldest === undefined;
    const lane = direct ? Math.floor((recs[0] as SequenceRecord).slot / this.rowsPerLane) : -1;
    const members: SequenceMember[] = requests.map((request, i) => {
      const slot = (recs[i] as SequenceRecord).slot;
      return { request, slot, row: direct ? slot % this.rowsPerLane : i };
    });
    const shape = {
      rows: direct ? Math.max(...members.map((m) => m.row)) + 1 : members.length,
      batched: this.settings.maxBatchSize > 0,
      controls: this.controls,
      states: this.states,
      maxBytes: this.settings.maxBlockBytes,
    };
    for (const rec of recs) this.table.dispatched(rec);
    if (lane >= 0) this.busyLanes.add(lane);
    const done = (): void => {
      if (lane >= 0) this.busyLanes.delete(lane);
      requests.forEach((r, i) => {
        this.records.delete(r);
        this.table.finished(recs[i] as SequenceRecord);
      });
    };
    let built;
    try {
      built = buildSequenceBlock(members, shape);
    } catch (e) {
      done();
      return Promise.resolve({ ok: false, error: toServerError(e).toWire() });
    }
    const { block, refused } = built;
    // A member whose data failed to copy (a region shrunk since validation) fails alone: the run
    // goes ahead for the others, and its outputs (its state too) are not taken.
    const ran = members.filter((_, i) => refused[i] === undefined);
    if (ran.length === 0) {
      done();
      const wire = refused.map((e) => e?.toWire());
      return Promise.resolve({ ok: false, error: wire[0] as WireError, refused: wire });
    }
    const outputs = new Set<string>();
    for (const m of ran) for (const o of m.request.outputs) outputs.add(o.name);
    for (const s of this.settings.states) outputs.add(s.outputName);
    return this.target.run({ inputs: block.descriptors, outputs: [...outputs] }).then(
      (resp) => {
        const outcome = this.take(ran, resp, shape);
        done();
        return ran.length === members.length ? outcome : withRefused(outcome, refused);
      },
      (): RunOutcome => {
        done();
        return { ok: false, error: { code: 'WORKER_FAILED', message: 'model instance failed' } };
      },
    );
  }

  dispose(): void {
    this.table.dispose();
  }

  /** Each member's outputs; its state kept. A failed run leaves every member's state as it was. */
  private take(
    members: readonly SequenceMember[],
    resp: RunResponse,
    shape: Parameters<typeof takeSequenceOutputs>[2],
  ): RunOutcome {
    if (!resp.ok) return resp;
    try {
      return {
        ok: true,
        timing: resp.timing,
        outputs: takeSequenceOutputs(members, resp.outputs, shape),
      };
    } catch (e) {
      return { ok: false, error: toServerError(e).toWire(), timing: resp.timing };
    }
  }

  private occupiedSlots(lane: number): number {
    return this.table.occupiedIn(lane * this.rowsPerLane, (lane + 1) * this.rowsPerLane);
  }

  private report(): void {
    this.settings.observe?.({
      live: this.table.liveCount,
      slotsInUse: this.table.slotsInUse,
      slots: this.slots,
      backlog: this.table.backlogLength,
    });
  }
}
