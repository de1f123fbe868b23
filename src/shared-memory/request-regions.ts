// The regions one inference request uses: acquired while it is validated (each a reference that
// keeps the region's fd open), read into the batch block by its inputs' `write`, written by its
// outputs, and released once the request is answered, whatever the outcome. A request that names
// no region never creates one of these.

import { fail } from '../errors.js';
import type { RegionRegistry } from './region-registry.js';
import type { ShmRegion } from './shm-region.js';

export class RequestRegions {
  readonly #held: ShmRegion[] = [];

  constructor(readonly registry: RegionRegistry | undefined) {}

  /** The region `name` with `byteSize` bytes at `offset` checked; held until `releaseAll`. */
  acquire(name: string, offset: number, byteSize: number): ShmRegion {
    if (this.registry === undefined) {
      throw fail(
        'SHM_DISABLED',
        "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.",
      );
    }
    const region = this.registry.acquire(name, offset, byteSize);
    this.#held.push(region);
    return region;
  }

  /**
   * One more reference to every region held now, for work that may outlast the request's answer
   * (a worker writing into a region's fd); the returned function lets them go.
   */
  hold(): () => void {
    const regions = [...this.#held];
    for (const r of regions) r.retain();
    return () => {
      for (const r of regions) this.registry?.release(r);
    };
  }

  releaseAll(): void {
    for (const r of this.#held.splice(0)) this.registry?.release(r);
  }
}
