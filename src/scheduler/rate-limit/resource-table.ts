// The rate limiter's resource table, as Triton's ResourceManager keeps it: how many copies of each
// resource exist, globally and on each device. Pure: recomputed from the registered instances'
// demands whenever one registers or leaves.
//
// Without --rate-limit-resource, a resource's count is the largest count any registered instance
// asks for (so every instance can run). With explicit resources, every resource an instance asks
// for must be given on the command line with at least that count: a global resource takes the
// largest count given for its name on any device; a per-device one the count given for its device
// or for every device (no `:<device>`), the larger if both. A name may not be both global and
// per-device.

import { fail } from '../../errors.js';
import type { ExplicitResource } from './rate-limit-settings.js';

/** Where a resource lives: 'global', or a device id. */
export type ResourcePlace = 'global' | number;

/** One instance's demand for one resource. */
export interface ResourceDemand {
  readonly name: string;
  readonly place: ResourcePlace;
  readonly count: number;
}

/** The key of a resource copy set: `global/<name>` or `<device>/<name>`. */
export function resourceKey(place: ResourcePlace, name: string): string {
  return `${place}/${name}`;
}

/**
 * The count of each resource (by resourceKey), from every registered instance's demands. Throws
 * CONFIG_INVALID in Triton's words when an explicit count is below a demand, or a name is both
 * global and per-device.
 */
export function resourceTable(
  demands: Iterable<readonly ResourceDemand[]>,
  explicit: readonly ExplicitResource[],
): Map<string, number> {
  const needed = new Map<string, { demand: ResourceDemand; count: number }>();
  for (const list of demands) {
    for (const d of list) {
      const key = resourceKey(d.place, d.name);
      const had = needed.get(key);
      if (had === undefined || had.count < d.count) needed.set(key, { demand: d, count: d.count });
    }
  }
  const table = new Map<string, number>();
  for (const [key, { demand, count }] of needed) {
    let limit = count;
    if (explicit.length > 0) {
      limit = 0; // not given: unavailable
      for (const e of explicit) {
        const applies =
          e.name === demand.name &&
          (demand.place === 'global' || e.device === undefined || e.device === demand.place);
        if (applies && e.count > limit) limit = e.count;
      }
      if (limit < count) {
        throw fail(
          'CONFIG_INVALID',
          `Resource count for "${demand.name}" is limited to ${limit} which will prevent ` +
            `scheduling of one or more model instances, the minimum required count is ${count}`,
        );
      }
    }
    table.set(key, limit);
  }
  for (const { demand } of needed.values()) {
    if (demand.place !== 'global') continue;
    for (const other of needed.values()) {
      if (other.demand.place !== 'global' && other.demand.name === demand.name) {
        throw fail(
          'CONFIG_INVALID',
          `Resource "${demand.name}" is present as both global and device-specific resource ` +
            `in the model configuration.`,
        );
      }
    }
  }
  return table;
}

/** The table as log lines' data: `{ GLOBAL: { R: 1 }, 'device 0': { R2: 4 } }`. */
export function describeTable(
  table: ReadonlyMap<string, number>,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [key, count] of [...table].sort(([a], [b]) => a.localeCompare(b))) {
    const slash = key.indexOf('/');
    const place = key.slice(0, slash);
    const where = place === 'global' ? 'GLOBAL' : `device ${place}`;
    (out[where] ??= {})[key.slice(slash + 1)] = count;
  }
  return out;
}
