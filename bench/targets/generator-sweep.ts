// The steps every server target shares once its requests are preflighted: probe the statistics
// extension, fork the protocol's load generator with its engine settings, sweep the levels, and
// assemble the result. Building and preflighting the requests stays with each protocol's target.

import { DriverClient } from '../load/driver-client.js';
import type { LoadLevel } from '../load/messages.js';
import {
  fetchServerCounters,
  summedCounters,
  type ServerCounters,
} from '../measure/server-stats.js';
import type { BenchOptions } from '../options/bench-options.js';
import { fetchStageTable } from '../measure/stage-table.js';
import { benchEntry } from '../paths.js';
import type { Progress } from '../report/progress.js';
import type { TargetResult } from '../report/result-types.js';
import { runSweep } from '../sweep/run-sweep.js';
import { targetServers, type HttpTargetSpec } from './http-target.js';

export interface GeneratorPlan {
  /** The generator's entry script under bench/load. */
  readonly generator: string;
  /** Engine settings handed to every generator thread (built after the stats probe). */
  readonly engine: () => unknown;
  readonly transport: string;
  /** Notes after the spec's own, before the no-statistics note. */
  readonly notes: readonly string[];
  /**
   * Reads the server's statistics (null: it has none); by default the HTTP statistics extension
   * at the spec's host and port.
   */
  readonly counters?: () => Promise<ServerCounters | null>;
}

export async function runGeneratorSweep(
  spec: HttpTargetSpec,
  plan: GeneratorPlan,
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<TargetResult> {
  // Stats come from Triton's statistics extension (over HTTP, or its gRPC twin for a gRPC
  // target), so the breakdown columns mean the same thing for every target.
  const base = `http://${spec.host}:${spec.port}`;
  const servers = targetServers(spec);
  const counters =
    plan.counters ??
    (() =>
      summedCounters(
        servers.map(
          (s) => () =>
            fetchServerCounters(
              `http://${spec.host}:${s.port}`,
              options.model,
              options.modelVersion,
            ),
        ),
      ));
  const pids = servers.map((s) => s.pid);
  const hasStats = (await counters().catch(() => null)) !== null;
  const driver = await DriverClient.start(benchEntry('load', plan.generator), {
    threads: options.generatorThreads,
    engine: plan.engine(),
  });
  try {
    const levelsResult = await runSweep(
      spec.label,
      {
        driver,
        readCounters: hasStats ? counters : null,
        // Several servers: their CPU summed (all must be ours to observe).
        serverPid:
          servers.length === 1
            ? spec.pid
            : pids.every((p) => p !== null)
              ? (pids as number[])
              : null,
        // Stages are traced on HTTP inference only; a gRPC target's port is not the HTTP one,
        // and an N-process reference has no one timeline.
        ...(options.trace &&
          spec.kind === 'infernode' &&
          servers.length === 1 &&
          plan.counters === undefined && {
            readStages: (reset: boolean) => fetchStageTable(base, reset),
          }),
      },
      levels,
      options,
      progress,
    );
    const notes = [...spec.notes, ...plan.notes];
    if (!hasStats) notes.push('no statistics extension: no server-side breakdown');
    return {
      id: spec.id,
      kind: spec.kind,
      label: spec.label,
      description: spec.description,
      transport: plan.transport,
      notes,
      levels: levelsResult,
    };
  } finally {
    await driver.close();
  }
}
