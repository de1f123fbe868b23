// A model version's instances as the rate limiter registers them: each pool instance's name, the
// device its per-device resources count on, and its instance group's `rate_limiter`.

import type { ModelConfig } from '../../config/model-config.js';
import { instancePlacements } from '../../execution/instance-groups.js';
import { instanceName } from '../../execution/instance-pool.js';
import type { InstanceGroup } from '../../execution/run-channel.js';
import type { LimitedInstanceSpec } from './rate-limiter.js';

/**
 * `groups`: the backend's pools of the version (named as instancePlacements names them). A CPU
 * instance counts its per-device resources on device 0, as Triton's CPU instances do.
 */
export function limitedInstances(
  config: Pick<ModelConfig, 'instance_group'>,
  groups: readonly InstanceGroup[],
): LimitedInstanceSpec[] {
  const placed = new Map(instancePlacements(config).map((p) => [p.instance, p]));
  return groups.flatMap((g) => {
    const p = placed.get(g.instance);
    return Array.from({ length: g.count }, (_, k) => ({
      name: instanceName(g, k),
      device: p?.deviceId ?? 0,
      resources: p?.rateLimiter?.resources ?? [],
      priority: p?.rateLimiter?.priority ?? 0,
    }));
  });
}
