// Which of a model's version directories are served, per Triton's version_policy.

import type { VersionPolicy } from '../config/model-config.js';

/** `available` is every numeric version directory found; the result is sorted ascending. */
export function selectVersions(policy: VersionPolicy, available: readonly number[]): number[] {
  const sorted = [...available].sort((a, b) => a - b);
  if ('all' in policy) return sorted;
  if ('specific' in policy) {
    const wanted = new Set(policy.specific.versions);
    return sorted.filter((v) => wanted.has(v));
  }
  const n = Math.max(1, policy.latest.num_versions);
  return sorted.slice(Math.max(0, sorted.length - n));
}
