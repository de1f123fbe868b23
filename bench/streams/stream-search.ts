// The search for the largest stream count a target sustains: double from `start` until a probe
// fails (or `max` passes), then bisect between the last pass and the first failure until they
// are within `resolution` (a fraction of the pass, at least one stream). Pure over the probe
// function, so the walk is unit-tested without a server.

export interface SearchOptions {
  readonly start: number;
  readonly max: number;
  /** Stop bisecting when fail - pass <= max(1, resolution * pass). */
  readonly resolution: number;
}

export interface SearchPoint<P> {
  readonly streams: number;
  readonly passed: boolean;
  readonly probe: P;
}

export interface SearchOutcome<P> {
  /** The largest count that passed; 0 when none did. */
  readonly sustained: number;
  /** Every probe in the order it ran. */
  readonly points: readonly SearchPoint<P>[];
}

export async function searchMaxStreams<P>(
  options: SearchOptions,
  run: (streams: number) => Promise<P>,
  passed: (probe: P) => boolean,
): Promise<SearchOutcome<P>> {
  const points: SearchPoint<P>[] = [];
  const tryCount = async (streams: number): Promise<boolean> => {
    const probe = await run(streams);
    const ok = passed(probe);
    points.push({ streams, passed: ok, probe });
    return ok;
  };
  let pass = 0;
  let fail = 0;
  for (let n = Math.max(1, options.start); ; n = Math.min(options.max, n * 2)) {
    if (await tryCount(n)) {
      pass = n;
      if (n >= options.max) return { sustained: pass, points };
    } else {
      fail = n;
      break;
    }
  }
  while (fail - pass > Math.max(1, Math.floor(options.resolution * pass))) {
    const mid = Math.floor((pass + fail) / 2);
    if (await tryCount(mid)) pass = mid;
    else fail = mid;
  }
  return { sustained: pass, points };
}
