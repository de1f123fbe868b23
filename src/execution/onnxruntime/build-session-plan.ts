// Builds the plain-data ORT session plan for a model instance from the model's OrtParameters (read
// once by the config pipeline) and the thread counts the thread budget gave it. Pure: no ORT, no
// files, no environment, no raw config parameters.

import type { InstanceKind, ModelConfig } from '../../config/model-config.js';
import type { OrtParameters } from '../../config/ort-parameters.js';
import { executionProvidersFor } from './execution-providers.js';
import type { InstanceGroupPlan, OrtSessionPlan } from './session-plan.js';
import { threadsFor } from '../thread-budget.js';
import type { InstanceThreads, ThreadBudget } from '../thread-budget.js';

/** The device an instance runs on: its group's kind, and for GPU groups one of its `gpus`. */
export interface InstanceTarget {
  readonly kind: InstanceKind;
  readonly deviceId?: number;
}

export function buildSessionPlan(
  ort: OrtParameters,
  instance: InstanceTarget,
  budget: InstanceThreads,
): OrtSessionPlan {
  return Object.freeze({
    intraOpNumThreads: budget.intraOpNumThreads,
    interOpNumThreads: budget.interOpNumThreads,
    executionMode: ort.executionMode,
    graphOptimizationLevel: ort.graphOptimizationLevel,
    enableCpuMemArena: ort.enableCpuMemArena,
    enableMemPattern: ort.enableMemPattern,
    configEntries: ort.configEntries,
    executionProviders: Object.freeze(
      executionProvidersFor(ort, instance).map((ep) => Object.freeze(ep)),
    ),
  });
}

/**
 * One `InstanceGroupPlan` per worker pool the model needs: a CPU group is one pool of `count`
 * workers; a GPU group is one pool of `count` workers per listed GPU (Triton places `count`
 * instances on each), named `<group>_gpu<id>`, so that every worker of a pool shares one plan.
 */
export function buildInstanceGroupPlans(
  config: Pick<ModelConfig, 'name' | 'instance_group'>,
  ort: OrtParameters,
  version: number,
  budget: ThreadBudget,
): InstanceGroupPlan[] {
  return config.instance_group.flatMap((group): InstanceGroupPlan[] => {
    const threads = threadsFor(budget, config.name, version, group.name);
    if (group.kind !== 'KIND_GPU') {
      const plan = buildSessionPlan(ort, { kind: group.kind }, threads);
      return [{ instance: group.name, count: group.count, plan }];
    }
    const gpus = group.gpus.length > 0 ? group.gpus : [0];
    return gpus.map((deviceId) => ({
      instance: `${group.name}_gpu${deviceId}`,
      count: group.count,
      plan: buildSessionPlan(ort, { kind: 'KIND_GPU', deviceId }, threads),
    }));
  });
}
