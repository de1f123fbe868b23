// Where a model's instances run, for every backend that runs instances: one worker pool per CPU
// group, and one per listed GPU of a GPU group (Triton places `count` instances on each), named
// `<group>_gpu<id>`. A backend turns each into its own plan (ORT: a session plan with the threads
// the budget gave the group, onnxruntime/build-session-plan.ts). Pure.

import type { InstanceKind, ModelConfig, RateLimiterConfig } from '../config/model-config.js';
import type { InstanceGroup } from './run-channel.js';

/** One worker pool of a config's instance group, and the device its instances run on. */
export interface InstancePlacement extends InstanceGroup {
  /** The config's instance group it belongs to (the thread budget's key). */
  readonly group: string;
  readonly kind: InstanceKind;
  /** For a GPU group: the GPU of this pool. */
  readonly deviceId?: number;
  /** The group's `rate_limiter`, when it has one. */
  readonly rateLimiter?: RateLimiterConfig;
}

/** The worker pools of `config`'s instance groups, in config order (a GPU group lists no GPU: 0). */
export function instancePlacements(
  config: Pick<ModelConfig, 'instance_group'>,
): InstancePlacement[] {
  return config.instance_group.flatMap((group): InstancePlacement[] => {
    const limits = group.rate_limiter !== undefined && { rateLimiter: group.rate_limiter };
    if (group.kind !== 'KIND_GPU') {
      return [
        {
          instance: group.name,
          count: group.count,
          group: group.name,
          kind: group.kind,
          ...limits,
        },
      ];
    }
    const gpus = group.gpus.length > 0 ? group.gpus : [0];
    return gpus.map((deviceId) => ({
      instance: `${group.name}_gpu${deviceId}`,
      count: group.count,
      group: group.name,
      kind: 'KIND_GPU',
      deviceId,
      ...limits,
    }));
  });
}

/**
 * The instances `config` runs: each pool's count, so a GPU group counts once per GPU it lists (or
 * once, on GPU 0, when it lists none). What a caller weighing in-flight requests against capacity
 * reads, from the same placements the backends start.
 */
export function instanceTotal(config: Pick<ModelConfig, 'instance_group'>): number {
  let n = 0;
  for (const p of instancePlacements(config)) n += p.count;
  return n;
}
