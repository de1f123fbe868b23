// The process-wide thread budget: how many intra-op / inter-op threads each model instance's ORT
// session gets, decided once for every loaded model together, with a log line per session.
//
// Why infernode decides this itself:
// - Per-session pools (Triton's default): a session with intra_op_thread_count unset gets ORT's
//   default, one thread per core. With several instances that oversubscribes the machine (4
//   instances on 2 cores = 8 spinning threads), so infernode instead divides the cores among the
//   CPU instances (at least 1 each). An explicit value always wins.
// - enable-global-threadpool=1: Triton makes one ORT environment with global pools. onnxruntime-node
//   cannot: its environment is created without global pools, and a session asking for them fails
//   with "session_env.EnvCreatedWithGlobalThreadPools() was false. When the session is not configured
//   to use per session threadpools, the env must be created with the the CreateEnvWithGlobalThreadPools
//   API." (ORT 1.30, verified by setting session.use_per_session_threads=0). So infernode enforces
//   the same budget by splitting it: all sessions' intra-op threads sum to at most N, and the
//   model-config thread parameters are ignored, as Triton ignores them in that mode.

import type { InstanceGroupConfig, InstanceKind } from '../config/model-config.js';
import { fail } from '../errors.js';
import type { OrtParameters } from './onnxruntime/config/ort-parameters.js';

/** `--backend-config=onnxruntime,...` thread settings. 0 = not given. */
export interface BackendThreadConfig {
  readonly globalThreadPool: boolean;
  readonly intraOpThreadCount: number;
  readonly interOpThreadCount: number;
}

/** One model version's instance groups and its parsed thread parameters. */
export interface ModelThreadDemand {
  readonly model: string;
  readonly version: number;
  readonly groups: readonly InstanceGroupConfig[];
  readonly params: Pick<
    OrtParameters,
    'intraOpThreadCount' | 'interOpThreadCount' | 'executionMode'
  >;
  /**
   * False for a model whose instances open no ORT session (the JavaScript backend): each instance is
   * one worker thread with no intra-op pool, so it takes no share of the cores and is never counted
   * against the budget. Default true.
   */
  readonly ortSessions?: boolean;
}

export interface InstanceThreads {
  readonly intraOpNumThreads: number;
  readonly interOpNumThreads: number;
}

export type ThreadSource =
  'explicit' | 'core-share' | 'gpu-instance' | 'global-share' | 'no-ort-session';

export interface ThreadBudgetEntry extends InstanceThreads {
  readonly model: string;
  readonly version: number;
  readonly group: string;
  readonly kind: InstanceKind;
  /** Sessions in this group: count, times the number of GPUs for a GPU group. */
  readonly sessions: number;
  readonly source: ThreadSource;
}

export interface ThreadBudget {
  readonly entries: readonly ThreadBudgetEntry[];
  /** One summary line, then one line per group listing every session's threads. */
  readonly log: readonly string[];
  readonly warnings: readonly string[];
}

interface Slot {
  readonly demand: ModelThreadDemand;
  readonly group: InstanceGroupConfig;
  readonly sessions: number;
}

/** Sessions a group creates: Triton makes `count` instances on each listed GPU. */
export function sessionsOf(group: InstanceGroupConfig): number {
  return group.kind === 'KIND_GPU' ? group.count * Math.max(1, group.gpus.length) : group.count;
}

/**
 * Splits `total` threads over groups of `sizes` sessions: every session gets floor(total / n), then
 * whole groups (in order) get one more while the remainder lasts. Instances of one group share a
 * worker pool and so one session plan, which is why the remainder goes out a group at a time.
 */
function split(total: number, sizes: readonly number[]): number[] {
  const n = sizes.reduce((a, b) => a + b, 0);
  const base = Math.max(1, Math.floor(total / Math.max(1, n)));
  let left = total - base * n;
  return sizes.map((size) => {
    if (left >= size) {
      left -= size;
      return base + 1;
    }
    return base;
  });
}

function describe(slots: readonly Slot[]): string {
  return slots.map((s) => `${s.demand.model} v${s.demand.version} ×${s.sessions}`).join(', ');
}

function globalBudget(slots: readonly Slot[], backend: BackendThreadConfig, cores: number) {
  const n = backend.intraOpThreadCount > 0 ? backend.intraOpThreadCount : cores;
  const total = slots.reduce((a, s) => a + s.sessions, 0);
  if (total > n) {
    throw fail(
      'CONFIG_INVALID',
      `global thread pool: intra_op_thread_count=${n} cannot give each of the ${total} model ` +
        `instances (${describe(slots)}) at least one thread; raise intra_op_thread_count or ` +
        `lower the instance counts`,
    );
  }
  const intra = split(
    n,
    slots.map((s) => s.sessions),
  );
  const parallel = slots.filter((s) => s.demand.params.executionMode === 'parallel');
  const m = backend.interOpThreadCount > 0 ? backend.interOpThreadCount : n;
  const inter = split(
    m,
    parallel.map((s) => s.sessions),
  );
  const warnings: string[] = [];
  const parallelSessions = parallel.reduce((a, s) => a + s.sessions, 0);
  if (parallelSessions > m) {
    warnings.push(
      `global thread pool: inter_op_thread_count=${m} is fewer than the ${parallelSessions} ` +
        `parallel-mode instances; each gets 1 inter-op thread`,
    );
  }
  const seen = new Set<string>();
  for (const s of slots) {
    const key = `${s.demand.model} v${s.demand.version}`;
    const p = s.demand.params;
    if ((p.intraOpThreadCount > 0 || p.interOpThreadCount > 0) && !seen.has(key)) {
      seen.add(key);
      warnings.push(
        `model ${key}: intra_op_thread_count/inter_op_thread_count in the model config are ` +
          `ignored because enable-global-threadpool=1 (as in Triton)`,
      );
    }
  }
  const summary =
    `thread budget: global (enable-global-threadpool=1): intra_op_thread_count=${n}` +
    ` split across ${total} instance session(s)` +
    (parallel.length > 0 ? `, inter_op_thread_count=${m} across the parallel-mode ones` : '');
  const entries = slots.map((s, i): ThreadBudgetEntry => {
    const j = parallel.indexOf(s);
    return entry(s, intra[i] ?? 1, j >= 0 ? (inter[j] ?? 1) : 1, 'global-share');
  });
  return { entries, warnings, summary };
}

function perSessionBudget(slots: readonly Slot[], cores: number) {
  const cpu = slots.filter((s) => s.group.kind !== 'KIND_GPU');
  const cpuSessions = cpu.reduce((a, s) => a + s.sessions, 0);
  // Every CPU session competes for the cores, explicit or not, so all of them count in the divisor;
  // only the unset ones take the share. More sessions than cores: 1 each.
  const shares = split(
    Math.max(cores, cpuSessions),
    cpu.map((s) => s.sessions),
  );
  const share = (s: Slot): number => shares[cpu.indexOf(s)] ?? 1;
  const entries = slots.map((s): ThreadBudgetEntry => {
    const p = s.demand.params;
    const gpu = s.group.kind === 'KIND_GPU';
    // A GPU session's intra-op pool only runs the nodes CUDA cannot; a spinning core-sized pool per
    // GPU instance would take CPU from everything else, so an unset GPU session gets 1 thread.
    const intra = p.intraOpThreadCount > 0 ? p.intraOpThreadCount : gpu ? 1 : share(s);
    const interDefault = p.executionMode === 'parallel' ? (gpu ? 1 : share(s)) : 1;
    const inter = p.interOpThreadCount > 0 ? p.interOpThreadCount : interDefault;
    const source: ThreadSource =
      p.intraOpThreadCount > 0 ? 'explicit' : gpu ? 'gpu-instance' : 'core-share';
    return entry(s, intra, inter, source);
  });
  const warnings: string[] = [];
  const used = entries
    .filter((e) => e.kind !== 'KIND_GPU')
    .reduce((a, e) => a + e.intraOpNumThreads * e.sessions, 0);
  if (used > cores) {
    warnings.push(
      `thread budget: CPU instances use ${used} intra-op threads on ${cores} core(s); ` +
        `expect contention (lower intra_op_thread_count or instance counts)`,
    );
  }
  const summary =
    `thread budget: per-session pools; ${cores} core(s) divided among ${cpuSessions} CPU ` +
    `instance session(s) where intra_op_thread_count is unset (an explicit value wins)`;
  return { entries, warnings, summary };
}

function entry(s: Slot, intra: number, inter: number, source: ThreadSource): ThreadBudgetEntry {
  return Object.freeze({
    model: s.demand.model,
    version: s.demand.version,
    group: s.group.name,
    kind: s.group.kind,
    sessions: s.sessions,
    intraOpNumThreads: intra,
    interOpNumThreads: inter,
    source,
  });
}

/**
 * Decides every instance's thread counts. Pure: `cores` is `os.availableParallelism()` in the
 * server and a fixed number in tests. Throws CONFIG_INVALID when the global budget cannot give each
 * instance one thread.
 */
export function planThreadBudget(
  models: readonly ModelThreadDemand[],
  backend: BackendThreadConfig,
  cores: number,
): ThreadBudget {
  if (!Number.isSafeInteger(cores) || cores < 1) {
    throw fail('INTERNAL', `thread budget: expected a core count >= 1, got ${cores}`);
  }
  const all: Slot[] = models.flatMap((demand) =>
    demand.groups.map((group) => ({ demand, group, sessions: sessionsOf(group) })),
  );
  const slots = all.filter((s) => s.demand.ortSessions !== false);
  const planned = backend.globalThreadPool
    ? globalBudget(slots, backend, cores)
    : perSessionBudget(slots, cores);
  const { warnings, summary } = planned;
  const entries = [
    ...planned.entries,
    ...all
      .filter((s) => s.demand.ortSessions === false)
      .map((s) => entry(s, 1, 1, 'no-ort-session')),
  ];
  const log = [
    summary,
    ...entries.map(
      (e) =>
        `  ${e.model} v${e.version} ${e.group} (${e.kind} ×${e.sessions}): ` +
        `intra_op=${e.intraOpNumThreads} inter_op=${e.interOpNumThreads} [${e.source}]`,
    ),
  ];
  return Object.freeze({
    entries: Object.freeze(entries),
    log: Object.freeze(log),
    warnings: Object.freeze(warnings),
  });
}

/** The threads planned for one group; INTERNAL if the budget was planned without it. */
export function threadsFor(
  budget: ThreadBudget,
  model: string,
  version: number,
  group: string,
): InstanceThreads {
  const e = budget.entries.find(
    (x) => x.model === model && x.version === version && x.group === group,
  );
  if (e === undefined) {
    throw fail('INTERNAL', `thread budget has no entry for ${model} v${version} group ${group}`);
  }
  return { intraOpNumThreads: e.intraOpNumThreads, interOpNumThreads: e.interOpNumThreads };
}
