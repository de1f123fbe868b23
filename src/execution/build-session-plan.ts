// Builds the plain-data ORT session plan for a model instance from the frozen ModelConfig: graph
// optimization level, execution mode, memory options, session config entries, execution providers,
// and the thread counts the thread budget gave it. Pure: no ORT, no files, no environment.

import type { InstanceKind, ModelConfig } from '../config/model-config.js';
import { fail } from '../errors.js';
import { executionProvidersFor } from './execution-providers.js';
import { readOrtParameters } from './ort-parameters.js';
import type { InstanceGroupPlan, OrtSessionPlan } from './session-plan.js';
import { threadsFor } from './thread-budget.js';
import type { InstanceThreads, ThreadBudget } from './thread-budget.js';

/**
 * `optimization.graph.level` as the ORT backend maps it (onnxruntime.cc): absent or 0 -> all,
 * -1 -> basic, 1 -> extended, 2 -> disabled. The backend silently treats any other value as "all";
 * infernode rejects it, since it is almost certainly a typo for one of the four.
 */
export function graphOptimizationLevel(
  config: ModelConfig,
): OrtSessionPlan['graphOptimizationLevel'] {
  const level = config.optimization?.graph?.level ?? 0;
  switch (level) {
    case 0:
      return 'all';
    case -1:
      return 'basic';
    case 1:
      return 'extended';
    case 2:
      return 'disabled';
    default:
      throw fail(
        'CONFIG_INVALID',
        `optimization.graph.level: expected -1, 0, 1 or 2, got ${String(level)}`,
      );
  }
}

/** The device an instance runs on: its group's kind, and for GPU groups one of its `gpus`. */
export interface InstanceTarget {
  readonly kind: InstanceKind;
  readonly deviceId?: number;
}

export function buildSessionPlan(
  config: ModelConfig,
  instance: InstanceTarget,
  budget: InstanceThreads,
): OrtSessionPlan {
  const params = readOrtParameters(config);
  return Object.freeze({
    intraOpNumThreads: budget.intraOpNumThreads,
    interOpNumThreads: budget.interOpNumThreads,
    executionMode: params.executionMode,
    graphOptimizationLevel: graphOptimizationLevel(config),
    // ORT's defaults are both on; the config only ever turns them off (or restates the default).
    enableCpuMemArena: params.enableMemArena ?? true,
    enableMemPattern: params.enableMemPattern ?? true,
    configEntries: params.configEntries,
    executionProviders: Object.freeze(
      executionProvidersFor(config, instance).map((ep) => Object.freeze(ep)),
    ),
  });
}

/**
 * One `InstanceGroupPlan` per worker pool the model needs: a CPU group is one pool of `count`
 * workers; a GPU group is one pool of `count` workers per listed GPU (Triton places `count`
 * instances on each), named `<group>_gpu<id>`, so that every worker of a pool shares one plan.
 */
export function buildInstanceGroupPlans(
  config: ModelConfig,
  version: number,
  budget: ThreadBudget,
): InstanceGroupPlan[] {
  return config.instance_group.flatMap((group): InstanceGroupPlan[] => {
    const threads = threadsFor(budget, config.name, version, group.name);
    if (group.kind !== 'KIND_GPU') {
      const plan = buildSessionPlan(config, { kind: group.kind }, threads);
      return [{ instance: group.name, count: group.count, plan }];
    }
    const gpus = group.gpus.length > 0 ? group.gpus : [0];
    return gpus.map((deviceId) => ({
      instance: `${group.name}_gpu${deviceId}`,
      count: group.count,
      plan: buildSessionPlan(config, { kind: 'KIND_GPU', deviceId }, threads),
    }));
  });
}
