// The dynamic batching strategy: whenever an instance is free, the batch planner picks the queued
// requests that run together; their inputs are merged into one SharedArrayBuffer block, run on one
// instance, and the outputs are handed back to each request as views. With batching disabled
// (maxBatchSize 0) each request runs alone, as it came: that is also the direct path, for models
// without `dynamic_batching`, as in Triton. A lone large request skips the block: its own buffers
// move to the worker (moved-inputs.ts). The queue, aborts and drain are the shell's.

import { toServerError, type WireError } from '../errors.js';
import type { MemberResult, RunResponse, RunTiming } from '../execution/messages.js';
import { DEFAULT_MAX_BLOCK_BYTES } from '../memory/tensor-block.js';
import { BlockPool } from '../memory/block-pool.js';
import { planBatch, type BatchLimits, type BatchPlan, type PlanContext } from './batch-plan.js';
import { batchKey, mergeMembers, splitOutputs } from './batch-tensors.js';
import { movedInputs } from './moved-inputs.js';
import type { RunScope } from '../execution/run-scope.js';
import type { ExecutionTarget } from './execution-target.js';
import type { PriorityPlan } from './queue-policy.js';
import type { QueuedRequest, RunOutcome, SchedulingStrategy } from './scheduling-strategy.js';
import type { ScheduledOutput } from './scheduler.js';
import type { ValidatedRequest } from './validated-request.js';
import type { RegionWrite } from '../shared-memory/region-write.js';
import { outputRegionWrites, withWritten } from './region-writes.js';
import { withRefused } from './refused-members.js';

/** The frozen `dynamic_batching` settings, resolved (see create-scheduler.ts). */
export interface BatcherSettings {
  /**
   * Rows one run may hold. 0: no batching, each request runs alone with its tensors as sent (the
   * model has no batch dim, or no `dynamic_batching`); the queue policy still applies.
   */
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  readonly maxQueueDelayUs: number;
  readonly preserveOrdering: boolean;
  readonly priorities: PriorityPlan;
}

export class DynamicBatcher implements SchedulingStrategy {
  private readonly limits: BatchLimits;
  private readonly batched: boolean;
  /** Batch input blocks reused across runs, when the target frees them once a run has answered. */
  private readonly pool: BlockPool | undefined;

  /** @param maxBlockBytes cap on one batch's input bytes (the server passes --http-max-input-size) */
  constructor(
    private readonly target: ExecutionTarget,
    settings: BatcherSettings,
    maxBlockBytes: number = DEFAULT_MAX_BLOCK_BYTES,
  ) {
    this.batched = settings.maxBatchSize > 0;
    this.pool = target.inputsFreeAfterRun === true ? new BlockPool() : undefined;
    this.limits = {
      maxBatchSize: settings.maxBatchSize,
      preferredBatchSizes: settings.preferredBatchSizes,
      maxQueueDelayNs: settings.maxQueueDelayUs * 1000,
      maxBatchBytes: maxBlockBytes,
    };
  }

  get capacity(): number {
    return this.target.capacity;
  }

  keyOf(request: ValidatedRequest): string {
    return this.batched ? batchKey(request.inputs) : '';
  }

  plan(queue: readonly QueuedRequest[], ctx: PlanContext): BatchPlan {
    return planBatch(queue, this.limits, ctx);
  }

  execute(members: readonly ValidatedRequest[]): Promise<RunOutcome> {
    const lone = members.length === 1 ? (members[0] as ValidatedRequest) : undefined;
    let moved: ReturnType<typeof movedInputs>;
    let regionWrites: RegionWrite[] | undefined;
    try {
      moved = lone === undefined ? undefined : movedInputs(lone.inputs);
      // A lone large request's fixed-size outputs bound for its shared-memory regions: the worker
      // writes them there itself (region-writes.ts).
      if (moved !== undefined && lone !== undefined) regionWrites = outputRegionWrites(lone);
    } catch (e) {
      // A region input that failed to read (shrunk since validation): this request alone fails, as
      // in the gather below.
      const error = toServerError(e).toWire();
      return Promise.resolve({ ok: false, error, refused: [error] });
    }
    if (lone !== undefined && moved !== undefined) {
      // A lone large request: its own buffers go to the worker, no gather copy (moved-inputs.ts).
      // Its regions stay open until the worker has answered, even if the request is answered
      // first (cancelled): the worker writes to their fds.
      const letGo = regionWrites === undefined ? undefined : lone.regions?.hold();
      const run = this.target
        .run(
          {
            inputs: moved.descriptors,
            outputs: outputUnion(members),
            ...(this.batched && { members: [lone.batchSize] }),
            ...(lone.trace !== undefined && { trace: true as const }),
            ...(regionWrites !== undefined && { regionWrites }),
          },
          runScope(members),
          moved.transfer,
        )
        .then((resp) => split(members, resp), workerFailed);
      return letGo === undefined ? run : run.finally(letGo);
    }
    const { block, refused } = mergeMembers(
      members.map((r) => ({ rows: r.batchSize, inputs: r.inputs })),
      {
        batched: this.batched,
        // Padding: each slot starts on a 64-byte boundary.
        maxBytes: this.limits.maxBatchBytes + 64 * (members[0]?.inputs.length ?? 0),
        ...(this.pool !== undefined && { pool: this.pool }),
      },
    );
    if (block === undefined) {
      const wire = refused.map((e) => e?.toWire());
      return Promise.resolve({ ok: false, error: wire[0] as WireError, refused: wire });
    }
    const ran = refused.every((e) => e === undefined)
      ? members
      : members.filter((_, i) => refused[i] === undefined);
    const outcome = this.target
      .run(
        {
          inputs: block.descriptors,
          outputs: outputUnion(ran),
          // The rows each member brought: a worker that answers per request (a JavaScript model)
          // hands its model one request per member; the ORT worker runs the block as one batch.
          ...(this.batched && { members: ran.map((r) => r.batchSize) }),
          // --trace-stages: the worker stamps the run only when a member is traced.
          ...(ran.some((r) => r.trace !== undefined) && { trace: true as const }),
        },
        runScope(ran),
      )
      .then((resp) => {
        this.recycle(block.buffer, resp);
        return split(ran, resp);
      }, workerFailed);
    return ran === members ? outcome : outcome.then((o) => withRefused(o, refused));
  }

  /**
   * The run answered, so its worker no longer reads the block: back to the pool, unless an output
   * is a view of it (never for ORT, whose outputs are copied; checked because a request's outputs
   * are sent zero-copy and must not change under the response). A run that failed keeps its block
   * out of the pool: its worker may not have been the one to stop reading it.
   */
  private recycle(buffer: SharedArrayBuffer, resp: RunResponse): void {
    if (this.pool === undefined || !resp.ok) return;
    if (resp.outputs.some((d) => d.buffer === buffer)) return;
    this.pool.release(buffer);
  }
}

function workerFailed(): RunOutcome {
  return { ok: false, error: { code: 'WORKER_FAILED', message: 'model instance failed' } };
}

/** The members' signals, and their response sinks when they have them (decoupled models). */
function runScope(members: readonly ValidatedRequest[]): RunScope {
  const signals = members.map((r) => r.signal);
  // Traced members' stamps, for the BLS calls a JavaScript model makes while serving them; an
  // untraced run pays one check per member.
  const traced = members.some(sampled);
  if (members.every((r) => r.responses === undefined)) {
    return traced ? { signals, traces: members.map((r) => r.trace) } : { signals };
  }
  const sinks = members.map((r) => r.responses);
  return traced ? { signals, sinks, traces: members.map((r) => r.trace) } : { signals, sinks };
}

const sampled = (r: ValidatedRequest): boolean => r.trace?.span !== undefined;

/** Each member's rows of the batch's outputs: views, no copy; only the outputs it asked for. */
function split(members: readonly ValidatedRequest[], resp: RunResponse): RunOutcome {
  if (!resp.ok) return resp;
  if (resp.members !== undefined) return perMember(members, resp.members, resp.timing);
  let parts: ReturnType<typeof splitOutputs>;
  try {
    parts = splitOutputs(
      resp.outputs,
      members.map((r) => r.batchSize),
    );
  } catch (e) {
    // The model ran (it counts as an execution), but its outputs do not split into the members.
    return { ok: false, error: toServerError(e).toWire(), timing: resp.timing };
  }
  if (members.length === 1) {
    // The lone member's run fetched exactly its outputs, in its order: nothing to pick.
    return { ok: true, timing: resp.timing, outputs: withWritten(parts, resp.written) };
  }
  return {
    ok: true,
    timing: resp.timing,
    outputs: members.map((r, i) => {
      const byName = new Map((parts[i] ?? []).map((o) => [o.name, o]));
      return r.outputs.flatMap((o) => byName.get(o.name) ?? []);
    }),
  };
}

/**
 * A worker's per-member answers: each member's own outputs (in its order), or its own error. When
 * every member failed, the run fails with the first error and each member gets its own.
 */
function perMember(
  members: readonly ValidatedRequest[],
  results: readonly MemberResult[],
  timing: RunTiming,
): RunOutcome {
  if (results.length !== members.length) {
    const message = `the worker answered ${results.length} of ${members.length} batched requests`;
    return { ok: false, error: { code: 'INTERNAL', message }, timing };
  }
  const failed = results.map((r) => (r.ok ? undefined : r.error));
  const outputs = members.map((m, i) => {
    const r = results[i];
    if (r === undefined || !r.ok) return [];
    const byName = new Map(r.outputs.map((d) => [d.name, d]));
    return m.outputs.flatMap((o): ScheduledOutput[] => {
      const d = byName.get(o.name);
      if (d === undefined) return [];
      const data = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      return [{ name: d.name, datatype: d.datatype, shape: d.shape, data }];
    });
  });
  const first = failed.find((e) => e !== undefined);
  if (first === undefined) return { ok: true, timing, outputs };
  if (failed.every((e) => e !== undefined))
    return { ok: false, error: first, timing, refused: failed };
  return { ok: true, timing, outputs, refused: failed };
}

/** Every output some member asked for, in first-asked order: the batch runs them all once. */
function outputUnion(members: readonly ValidatedRequest[]): string[] {
  if (members.length === 1) return (members[0] as ValidatedRequest).outputs.map((o) => o.name);
  const names = new Set<string>();
  for (const r of members) for (const o of r.outputs) names.add(o.name);
  return [...names];
}
