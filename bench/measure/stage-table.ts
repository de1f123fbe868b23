// A level's per-stage timeline from a server run with --trace-stages (`GET /v2/debug/stages`): the
// table is reset when the level's first window starts and read after its last, so it covers the
// requests measured at that level and no warm-up.

import type { StageTable } from 'infernode/tooling';

export type { StageTable };

/** Reads (and with `reset`, then clears) the server's stage table; null when it traces nothing. */
export async function fetchStageTable(base: string, reset: boolean): Promise<StageTable | null> {
  const res = await fetch(`${base}/v2/debug/stages${reset ? '?reset=true' : ''}`);
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw new Error(`GET /v2/debug/stages: HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as StageTable;
}
