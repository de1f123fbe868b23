// The JavaScript backend's workers (workers/js-worker.ts, which import the model's module) and their
// run hand-off: each run as a piscina task, numbered, with the worker's instance channel
// (instance-channel.ts) serving its BLS calls and carrying a decoupled model's responses and final
// flags. A worker holds no ORT session, so it may be terminated at any time: its start and each run
// are bounded by the model's initialize_timeout_ms and execute_timeout_ms.

import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { RECLAIM_TASK, type RunRequest, type RunResponse, type WorkerInit } from '../messages.js';
import type { RunChannel, WorkerBackend } from '../run-channel.js';
import type { RunScope } from '../run-scope.js';
import { isChannelOpened } from './channel-messages.js';
import { InstanceChannel, type BlsHost } from './instance-channel.js';
import type { JavascriptWorkerInit } from './js-worker-init.js';

/** Compiled worker entry: dist/src/execution/javascript/ -> dist/workers/js-worker.js. */
const JS_WORKER_FILE = fileURLToPath(new URL('../../../workers/js-worker.js', import.meta.url));

export interface JavascriptWorkerOptions {
  readonly worker: JavascriptWorkerInit;
  /** A run (and finalize()) not settled this long after it began is abandoned, its worker replaced. */
  readonly executeTimeoutMs: number;
  /** A worker not ready this long after it started (import, initialize(), warmup) is terminated. */
  readonly initializeTimeoutMs: number;
  /** Each run waits for every request's final flag (the responses travel on the channel). */
  readonly decoupled: boolean;
  /** Where its BLS calls go (the data plane); absent: they fail with MODEL_NOT_READY. */
  readonly bls: BlsHost | undefined;
}

/** workerData of a JavaScript model's worker: the common fields and its own. */
export interface JavascriptWorkerData extends WorkerInit {
  readonly javascript: JavascriptWorkerInit;
}

export function javascriptWorkers(options: JavascriptWorkerOptions): WorkerBackend {
  return {
    workerFile: JS_WORKER_FILE,
    // Its groups hold no session plan: nothing to check before its workers start.
    checkGroups: () => {},
    workerData: (common): JavascriptWorkerData => ({ ...common, javascript: options.worker }),
    limits: { startMs: options.initializeTimeoutMs, runMs: options.executeTimeoutMs },
    finalizes: true,
    // The model's code may keep views of its inputs: their memory is never reused.
    inputsFreeAfterRun: false,
    openChannel: (piscina, where) => new JavascriptRunChannel(piscina, where, options),
  };
}

class JavascriptRunChannel implements RunChannel {
  /** The worker's instance channel, once it has posted its port. */
  private channel: InstanceChannel | undefined;

  constructor(
    private readonly piscina: Piscina,
    private readonly where: string,
    private readonly options: JavascriptWorkerOptions,
  ) {}

  take(m: unknown, threadId: number): boolean {
    if (!isChannelOpened(m) || m.threadId !== threadId) return false;
    this.channel?.close('the worker was replaced');
    this.channel = new InstanceChannel(m.port, {
      host: this.options.bls,
      defaultTimeoutMs: this.options.executeTimeoutMs,
      where: this.where,
    });
    return true;
  }

  sessionReady(): void {}

  run(
    req: RunRequest,
    id: number,
    scope: RunScope | undefined,
    transferList: ArrayBuffer[] | undefined,
  ): { readonly task: Promise<RunResponse>; done(): void } {
    const channel = this.channel;
    const finals = channel?.beginRun(id, req.members?.length ?? 1, scope);
    let task = this.piscina.run(
      channel !== undefined ? { ...req, run: id } : req,
      transferList === undefined ? undefined : { transferList },
    ) as Promise<RunResponse>;
    if (finals !== undefined && this.options.decoupled) {
      // The reply and the final flags travel on different ports: the run ends with both.
      task = task.then((r) => (r.ok ? finals.then(() => r) : r));
    }
    return { task, done: () => channel?.endRun(id) };
  }

  reclaim(): Promise<unknown> {
    return this.piscina.run(null, { name: RECLAIM_TASK });
  }

  close(why: string): void {
    this.channel?.close(why);
    this.channel = undefined;
  }

  stop(why: string): Promise<void> {
    this.close(why);
    return Promise.resolve();
  }
}
