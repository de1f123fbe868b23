// Builds the plain-data ORT session plan for a model instance from the model's OrtParameters (read
// once by the config pipeline) and the thread counts the thread budget gave it. Pure: no ORT, no
// files, no environment, no raw config parameters.

import type { InstanceKind, ModelConfig } from '../../config/model-config.js';
import type { OrtParameters } from './config/ort-parameters.js';
import { instancePlacements } from '../instance-groups.js';
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
 * One `InstanceGroupPlan` per worker pool the model needs (instance-groups.ts: a CPU group is one
 * pool of `count` workers; a GPU group is one pool of `count` workers per listed GPU, named
 * `<group>_gpu<id>`), so that every worker of a pool shares one plan, with its group's threads.
 */
export function buildInstanceGroupPlans(
  config: Pick<ModelConfig, 'name' | 'instance_group'>,
  ort: OrtParameters,
  version: number,
  budget: ThreadBudget,
): InstanceGroupPlan[] {
  return instancePlacements(config).map((p) => ({
    instance: p.instance,
    count: p.count,
    plan: buildSessionPlan(
      ort,
      p.deviceId === undefined ? { kind: p.kind } : { kind: p.kind, deviceId: p.deviceId },
      threadsFor(budget, config.name, version, p.group),
    ),
  }));
}
