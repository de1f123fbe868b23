// The ONNX Runtime backend's workers (workers/ort-worker.ts, one InferenceSession each, built from
// its group's session plan, which only they get, after the check that every provider a plan names
// is installed) and their run hand-off: over the doorbell (doorbell.ts) once the session is ready, or, with the doorbell
// off, each run as a piscina task. An ORT worker is never bounded by a timeout: terminating it
// inside session creation or session.run aborts the process (onnxruntime-node 1.30).

import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { EXECUTION_PROVIDERS } from './config/accelerators.js';
import { DoorbellClient, SERVE_TASK } from './doorbell.js';
import { deviceLockBuffer, releaseLocksHeldBy } from './device-lock.js';
import { assertProvidersInstalled } from './provider-availability.js';
import type { InstanceGroupPlan, OrtWorkerInit } from './session-plan.js';
import type { OrtLogSeverity } from './ort-log-level.js';
import { testGpuRecordFile } from './test-gpu-target.js';
import { RECLAIM_TASK, RELEASE_TASK, type RunRequest, type RunResponse } from '../messages.js';
import type { RunChannel, WorkerBackend } from '../run-channel.js';

/** Compiled worker entry: dist/src/execution/onnxruntime/ -> dist/workers/ort-worker.js. */
const WORKER_FILE = fileURLToPath(new URL('../../../workers/ort-worker.js', import.meta.url));

let defaultWorkerFile = WORKER_FILE;

/**
 * Tests only: ORT workers made from now on in this process run `file` instead of
 * workers/ort-worker.js unless their options name one (`undefined` restores the real worker). For
 * tests that start a whole server in-process, whose model manager cannot pass `workerFile`.
 * Production code never calls it.
 */
export function useWorkerFileForTests(file: string | undefined): void {
  defaultWorkerFile = file ?? WORKER_FILE;
}

export interface OrtWorkerOptions {
  /**
   * Tests only: a worker module to run instead of workers/ort-worker.js (a fixture that wraps the
   * real handler to fail on cue). Production code never sets it.
   */
  readonly workerFile?: string;
  /** Runs go over the doorbell once the session is ready (the default), else as piscina tasks. */
  readonly doorbell?: boolean;
  /** ORT's log severity for the sessions (ort-log-level.ts); absent: ORT's default. */
  readonly logSeverity?: OrtLogSeverity;
}

export function ortWorkers(options: OrtWorkerOptions = {}): WorkerBackend<InstanceGroupPlan> {
  const doorbell = options.doorbell !== false;
  return {
    workerFile: options.workerFile ?? defaultWorkerFile,
    // PROVIDER_UNAVAILABLE before any worker starts when a plan needs a provider the binding lacks.
    checkGroups: (groups) => {
      for (const g of groups) assertProvidersInstalled(g.plan);
    },
    workerData: (common, group) =>
      withGpuLock({
        ...common,
        plan: group.plan,
        ...(options.logSeverity !== undefined && { logSeverity: options.logSeverity }),
      }),
    limits: undefined,
    finalizes: false,
    // Outputs are copied out of ORT before the reply: the inputs are free once it arrives.
    inputsFreeAfterRun: true,
    openChannel: (piscina) => new OrtRunChannel(piscina, doorbell),
    // A worker that died inside its device's critical section must not stop that device for good.
    threadEnded: releaseLocksHeldBy,
  };
}

/** The test-only GPU stand-in's record file, read once per process. */
const standInRecord = testGpuRecordFile();

/** Gives an instance of a serialized GPU provider (WebGPU) its device's lock. */
function withGpuLock(init: OrtWorkerInit): OrtWorkerInit {
  const ep = init.plan.executionProviders.find((p) => EXECUTION_PROVIDERS[p.name].serialized);
  if (ep === undefined) return init;
  const deviceId = ep.deviceId ?? 0;
  return {
    ...init,
    gpuLock: {
      deviceId,
      buffer: deviceLockBuffer(deviceId),
      ...(standInRecord !== undefined && { standInRecord }),
    },
  };
}

/** One ORT worker's runs: piscina tasks until (and unless) its doorbell serves them. */
class OrtRunChannel implements RunChannel {
  /** The doorbell and its serve task, once the session is ready (doorbell on). */
  private bell: { readonly client: DoorbellClient; readonly serving: Promise<void> } | undefined;
  /** The worker has its session and its thread lives: it has a session to release at the end. */
  private ready = false;

  constructor(
    private readonly piscina: Piscina,
    private readonly useDoorbell: boolean,
  ) {}

  take(): boolean {
    return false;
  }

  /** Gives the ready worker its serve task: from now on its runs go over the doorbell. */
  sessionReady(): void {
    this.ready = true;
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
    this.ready = false;
    this.bell?.client.close();
    this.bell = undefined;
  }

  /** Ends the serve task, then has the worker release its session (RELEASE_TASK). */
  async stop(): Promise<void> {
    const bell = this.bell;
    this.bell = undefined;
    if (bell !== undefined) {
      // Settled: the worker is parked between runs, so the serve task returns at once.
      bell.client.stop();
      await bell.serving.catch(() => undefined);
      bell.client.close();
    }
    if (!this.ready) return; // no live worker with a session: a task would start a new thread
    this.ready = false;
    await this.piscina.run(null, { name: RELEASE_TASK }).catch(() => undefined);
  }
}
