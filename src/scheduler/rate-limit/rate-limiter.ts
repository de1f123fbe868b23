// Triton's rate limiter (--rate-limit=execution_count), one per server, shared by every model: an
// instance may start a run only when the resources its instance group's `rate_limiter` asks for
// are free; it holds them for the run and gives them back after. Instances waiting for resources
// are staged in one queue across all models, ordered as Triton orders them: by execution count
// times priority (a priority of 0 counts as 1), so an instance of priority 1 runs about twice as
// often as one of priority 2 under contention; ties go to the one staged first. Only the head of
// the queue may take resources (Triton's AttemptAllocation): a large demand is not overtaken by
// smaller ones behind it. Resources a run gives back go out after the promise jobs of that turn
// (allocateSoon), so an instance with more work stands in line for them too.
//
// Ensembles' steps and BLS calls reach instances through their models' pools, so they pass the
// same gate. A model's gate is closed after its pool has drained (no run waits or holds then).

import type { InstanceGate } from '../../execution/instance-gate.js';
import type { RateLimitSettings } from './rate-limit-settings.js';
import {
  describeTable,
  resourceKey,
  resourceTable,
  type ResourceDemand,
} from './resource-table.js';

/** One instance as its model's config places it (instance-groups.ts) and limits it. */
export interface LimitedInstanceSpec {
  /** The pool's instance name (`mlp_0`, `mlp_0_1`, `mlp_0_gpu1_0`). */
  readonly name: string;
  /** The device its per-device resources are counted on (Triton: 0 for a CPU instance). */
  readonly device: number;
  /** Its group's `rate_limiter.resources` (none: it runs whenever an instance is free). */
  readonly resources: readonly { name: string; global: boolean; count: number }[];
  readonly priority: number;
}

/** A model version's gate: `InstanceGate` for its pool, and `close` once the pool has closed. */
export interface ModelGate extends InstanceGate {
  /** Removes the version's instances: their demands no longer size the table. */
  close(): void;
}

interface Instance {
  readonly id: string;
  readonly demands: readonly ResourceDemand[];
  /** Keys into the table, parallel to `demands`. */
  readonly keys: readonly string[];
  readonly priority: number;
  execCount: number;
}

interface Staged {
  readonly instance: Instance;
  readonly seq: number;
  readonly resolve: () => void;
}

export class RateLimiter {
  private readonly registered = new Map<string, Instance>();
  private table = new Map<string, number>();
  private readonly allocated = new Map<string, number>();
  private readonly staged: Staged[] = [];
  private seq = 0;
  /** An allocation is scheduled (allocateSoon). */
  private allocating = false;

  constructor(private readonly settings: RateLimitSettings) {}

  /** The resources as the table counts them now (for the log). */
  describe(): Record<string, Record<string, number>> {
    return describeTable(this.table);
  }

  /**
   * Registers a model version's instances. Throws CONFIG_INVALID (Triton's words) when the resources
   * they ask for cannot be met; nothing is registered then.
   */
  register(model: string, version: number, specs: readonly LimitedInstanceSpec[]): ModelGate {
    const mine = new Map<string, Instance>();
    for (const s of specs) {
      const demands = s.resources.map((r): ResourceDemand => ({
        name: r.name,
        place: r.global ? 'global' : s.device,
        count: r.count,
      }));
      mine.set(s.name, {
        id: `${model}/${version}/${s.name}`,
        demands,
        keys: demands.map((d) => resourceKey(d.place, d.name)),
        priority: Math.max(s.priority, 1),
        execCount: 0,
      });
    }
    const next = new Map(this.registered);
    for (const i of mine.values()) next.set(i.id, i);
    this.table = resourceTable(
      [...next.values()].map((i) => i.demands),
      this.settings.resources,
    );
    for (const i of mine.values()) this.registered.set(i.id, i);
    const of = (name: string): Instance => {
      const i = mine.get(name);
      if (i === undefined) throw new Error(`instance ${name} is not registered`); // a bug
      return i;
    };
    return {
      admit: (name) => this.admit(of(name)),
      release: (name) => this.release(of(name)),
      rank: (name) => {
        const i = of(name);
        return i.execCount * i.priority;
      },
      close: () => {
        for (const i of mine.values()) this.registered.delete(i.id);
        this.table = resourceTable(
          [...this.registered.values()].map((i) => i.demands),
          this.settings.resources,
        );
        this.allocate();
      },
    };
  }

  /** Resources held now (tests, the log): key -> count. */
  held(): ReadonlyMap<string, number> {
    return this.allocated;
  }

  private admit(instance: Instance): Promise<void> | undefined {
    // Nobody waits: a free resource is taken at once (no promise, no wait for allocateSoon).
    if (this.staged.length === 0 && this.fits(instance)) {
      this.take(instance);
      return undefined;
    }
    return new Promise((resolve) => {
      this.staged.push({ instance, seq: this.seq++, resolve });
      this.allocate();
    });
  }

  private release(instance: Instance): void {
    instance.execCount++;
    for (const [k, key] of instance.keys.entries()) {
      const left = (this.allocated.get(key) ?? 0) - (instance.demands[k]?.count ?? 0);
      if (left > 0) this.allocated.set(key, left);
      else this.allocated.delete(key);
    }
    this.allocateSoon();
  }

  /**
   * Gives out freed resources once the current turn's promise jobs have run. A released instance
   * whose model has more work is staged again in those jobs (its scheduler dispatches the next
   * batch as the run's answer settles), so, as in Triton's OnRelease, it stands in line with the
   * other waiting instances before the resources go out; handing them out at once would always
   * pass them to another model, whatever the priorities.
   */
  private allocateSoon(): void {
    if (this.allocating) return;
    this.allocating = true;
    setImmediate(() => {
      this.allocating = false;
      this.allocate();
    });
  }

  /** Gives resources to the head of the staged queue while it fits. */
  private allocate(): void {
    while (this.staged.length > 0) {
      let best = 0;
      let bestRank = Infinity;
      for (const [k, s] of this.staged.entries()) {
        const rank = s.instance.execCount * s.instance.priority;
        if (rank < bestRank) {
          best = k;
          bestRank = rank;
        }
      }
      const head = this.staged[best];
      if (head === undefined || !this.fits(head.instance)) return;
      this.staged.splice(best, 1);
      this.take(head.instance);
      head.resolve();
    }
  }

  private fits(instance: Instance): boolean {
    for (const [k, key] of instance.keys.entries()) {
      const need = instance.demands[k]?.count ?? 0;
      if ((this.allocated.get(key) ?? 0) + need > (this.table.get(key) ?? 0)) return false;
    }
    return true;
  }

  private take(instance: Instance): void {
    for (const [k, key] of instance.keys.entries()) {
      this.allocated.set(key, (this.allocated.get(key) ?? 0) + (instance.demands[k]?.count ?? 0));
    }
  }
}
