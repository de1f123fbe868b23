// The ONNX Runtime backend's workers (workers/ort-worker.ts, one InferenceSession each) and their
// run hand-off: over the doorbell (doorbell.ts) once the session is ready, or, with the doorbell
// off, each run as a piscina task. An ORT worker is never bounded by a timeout: terminating it
// inside session creation or session.run aborts the process (onnxruntime-node 1.30).

import type { Piscina } from 'piscina';
import { DoorbellClient, SERVE_TASK } from './doorbell.js';
import { RECLAIM_TASK, type RunRequest, type RunResponse } from '../messages.js';
import type { RunChannel, WorkerBackend } from '../run-channel.js';

export interface OrtWorkerOptions {
  /** The worker entry: workers/ort-worker.js, or a test's fixture that wraps its handler. */
  readonly workerFile: string;
  /** Runs go over the doorbell once the session is ready (the default), else as piscina tasks. */
  readonly doorbell: boolean;
}

export function ortWorkers(options: OrtWorkerOptions): WorkerBackend {
  return {
    workerFile: options.workerFile,
    workerData: (common) => common,
    limits: undefined,
    finalizes: false,
    // Outputs are copied out of ORT before the reply: the inputs are free once it arrives.
    inputsFreeAfterRun: true,
    openChannel: (piscina) => new OrtRunChannel(piscina, options.doorbell),
  };
}

/** One ORT worker's runs: piscina tasks until (and unless) its doorbell serves them. */
class OrtRunChannel implements RunChannel {
  /** The doorbell and its serve task, once the session is ready (doorbell on). */
  private bell: { readonly client: DoorbellClient; readonly serving: Promise<void> } | undefined;

  constructor(
    private readonly piscina: Piscina,
    private readonly useDoorbell: boolean,
  ) {}

  take(): boolean {
    return false;
  }

  /** Gives the ready worker its serve task: from now on its runs go over the doorbell. */
  sessionReady(): void {
    if (!this.useDoorbell) return;
    const client = new DoorbellClient();
    const init = client.init;
    const serving = this.piscina.run(init, {
      name: SERVE_TASK,
      transferList: [init.port],
    }) as Promise<void>;
    // Its end fails the call outstanding on it (if any); the worker's own listeners see a death.
    serving.then(
      () => client.fail(new Error('the worker stopped serving')),
      (e: unknown) => client.fail(e),
    );
    this.bell = { client, serving };
  }

  run(
    req: RunRequest,
    _id: number,
    _scope: unknown,
    transferList: ArrayBuffer[] | undefined,
  ): { readonly task: Promise<RunResponse>; done(): void } {
    const bell = this.bell;
    const task =
      bell !== undefined
        ? bell.client.run(req, transferList)
        : (this.piscina.run(
            req,
            transferList === undefined ? undefined : { transferList },
          ) as Promise<RunResponse>);
    return { task, done: () => {} };
  }

  reclaim(): Promise<unknown> {
    const bell = this.bell;
    return bell !== undefined
      ? bell.client.reclaim()
      : this.piscina.run(null, { name: RECLAIM_TASK });
  }

  /** Its serve task has ended with the worker (or with the handler's throw). */
  close(): void {
    this.bell?.client.close();
    this.bell = undefined;
  }

  async stop(): Promise<void> {
    const bell = this.bell;
    this.bell = undefined;
    if (bell === undefined) return;
    // Settled: the worker is parked between runs, so the serve task returns at once.
    bell.client.stop();
    await bell.serving.catch(() => undefined);
    bell.client.close();
  }
}
