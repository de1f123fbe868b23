// The raw onnxruntime-node comparator targets: the sweep's levels run in-process over N sessions
// (one per worker thread), plus two fixed points that bound what the machine can do — one session
// looping on the main thread, and N sessions each looping on its own thread.

import type { ModelConfig } from 'infernode/tooling';
import { DriverClient } from '../load/driver-client.js';
import type { LoadLevel } from '../load/messages.js';
import type { InputSet } from '../model/input-data.js';
import { tensorBytes } from '../model/request-body.js';
import type { BenchOptions } from '../options/bench-options.js';
import { benchEntry } from '../paths.js';
import type { Progress } from '../report/progress.js';
import type { TargetResult } from '../report/result-types.js';
import { runSweep } from '../sweep/run-sweep.js';
import type { RawOrtInit } from './raw-ort-engine.js';

/** Thread counts as infernode would give each instance: the config's, else a share of the cores. */
export function rawSessionThreads(
  config: ModelConfig,
  sessions: number,
  cores: number,
): { intra: number; inter: number } {
  const param = (key: string): number | undefined => {
    const v = Number(config.parameters[key]?.string_value);
    return Number.isInteger(v) && v > 0 ? v : undefined;
  };
  return {
    intra: param('intra_op_thread_count') ?? Math.max(1, Math.floor(cores / sessions)),
    inter: param('inter_op_thread_count') ?? 1,
  };
}

export function rawInit(
  modelPath: string,
  sets: readonly InputSet[],
  threads: { intra: number; inter: number },
): RawOrtInit {
  return {
    modelPath,
    intraOpNumThreads: threads.intra,
    interOpNumThreads: threads.inter,
    feeds: sets.map((set) =>
      set.map((t) => ({
        name: t.name,
        datatype: t.datatype,
        shape: t.shape,
        bytes: tensorBytes(t),
      })),
    ),
  };
}

async function withDriver<T>(
  init: RawOrtInit,
  threads: number,
  f: (d: DriverClient) => Promise<T>,
): Promise<T> {
  const driver = await DriverClient.start(benchEntry('targets', 'raw-ort-process.js'), {
    threads,
    engine: init,
  });
  try {
    return await f(driver);
  } finally {
    await driver.close();
  }
}

export async function runRawOrtTargets(
  init: RawOrtInit,
  levels: readonly LoadLevel[],
  options: BenchOptions,
  progress: Progress,
): Promise<TargetResult[]> {
  const n = options.rawThreads;
  const threadsNote = `${n} session(s), intra_op ${init.intraOpNumThreads} / inter_op ${init.interOpNumThreads} threads each`;
  const sweep = await withDriver(init, n, (driver) =>
    runSweep('raw ORT', { driver, readCounters: null, serverPid: null }, levels, options, progress),
  );
  const main = await withDriver(init, 0, (driver) =>
    runSweep(
      'raw ORT, main thread',
      { driver, readCounters: null, serverPid: null },
      [{ kind: 'concurrency', concurrency: 1 }],
      options,
      progress,
    ),
  );
  const limit = await withDriver(init, n, (driver) =>
    runSweep(
      `raw ORT, ${n} threads`,
      { driver, readCounters: null, serverPid: null },
      [{ kind: 'concurrency', concurrency: n }],
      options,
      progress,
    ),
  );
  const common = { transport: 'in-process' };
  return [
    {
      ...common,
      id: 'raw-ort',
      kind: 'raw-ort',
      label: 'raw ORT',
      description: `session.run in-process, no server: the load level's callers share ${n} worker-thread session(s) and wait in a FIFO for a free one`,
      notes: [
        threadsNote,
        'latency includes the wait for a free session; no HTTP, no serialization',
      ],
      levels: sweep,
    },
    {
      ...common,
      id: 'raw-ort-main',
      kind: 'raw-ort-limit',
      label: 'raw ORT, 1 session on the main thread',
      description: 'session.run in a loop on the main thread: the cost of one run',
      notes: [`intra_op ${init.intraOpNumThreads} / inter_op ${init.interOpNumThreads} threads`],
      levels: main,
    },
    {
      ...common,
      id: 'raw-ort-threads',
      kind: 'raw-ort-limit',
      label: `raw ORT, ${n} threads`,
      description: `${n} worker threads, each looping session.run on its own session: the machine's limit`,
      notes: [threadsNote],
      levels: limit,
    },
  ];
}
