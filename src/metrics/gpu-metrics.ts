// Owns the one nvidia-smi process that feeds Triton's GPU metrics (nv_gpu_*, nv_energy_consumption):
// started once per server, not per scrape, it prints a CSV line per GPU every --metrics-interval-ms
// and the latest line of each GPU is kept; a scrape reads what is kept. It is restarted, spaced out,
// when it exits, and stopped with the server. Where nvidia-smi does not exist, there are no GPU
// metrics: one info line, no retries. Parsing and the energy total are in gpu-sample.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../logger.js';
import {
  EnergyTotal,
  nvidiaSmiArgs,
  parseGpuLine,
  rejectsEnergyField,
  type GpuReading,
  type GpuSample,
} from './gpu-sample.js';

/** The delay before the first restart after an exit; each further consecutive one doubles it. */
export const GPU_RESTART_BASE_MS = 1000;
/** The longest wait between two starts: a failing nvidia-smi costs one start a minute. */
export const GPU_RESTART_MAX_MS = 60_000;
/** A run this long was healthy: its exit starts the count of consecutive failures again. */
const STABLE_RUN_MS = 60_000;
/** How much of a failed run's output (not sample lines) is kept to explain its exit. */
const OUTPUT_KEPT = 2048;
/** How long a stopped nvidia-smi gets to end on SIGTERM before SIGKILL. */
const KILL_AFTER_MS = 2000;

export interface GpuMonitorOptions {
  /** --metrics-interval-ms: nvidia-smi's -lms. */
  readonly intervalMs: number;
  readonly logger: Logger;
  /** The executable, looked up on PATH (tests put a fake one first). */
  readonly command?: string;
  /** A monotonic clock in ms, for the power integral when the driver has no energy counter. */
  readonly now?: () => number;
}

interface Gpu {
  sample: GpuSample | undefined;
  readonly energy: EnergyTotal;
}

export class GpuMonitor {
  readonly #opts: Required<GpuMonitorOptions>;
  readonly #gpus = new Map<string, Gpu>();
  #child: ChildProcess | undefined;
  /** Resolves when the running child (if any) has exited. */
  #exited: Promise<void> = Promise.resolve();
  #withEnergy = true;
  #failures = 0;
  #restart: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(opts: GpuMonitorOptions) {
    this.#opts = { command: 'nvidia-smi', now: () => performance.now(), ...opts };
  }

  /** Starts nvidia-smi; returns at once (a missing nvidia-smi is noticed later and logged). */
  start(): void {
    if (!this.#stopped && this.#child === undefined) this.#spawn();
  }

  /** The pid of the nvidia-smi running now, if any. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Every GPU seen so far. */
  readings(): GpuReading[] {
    return [...this.#gpus].map(([uuid, g]) => ({
      uuid,
      sample: g.sample,
      energyJoules: g.energy.joules,
    }));
  }

  /** Stops nvidia-smi (SIGTERM, then SIGKILL) and resolves once it has exited. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restart);
    const child = this.#child;
    if (child !== undefined) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      await this.#exited;
      clearTimeout(kill);
    }
  }

  #spawn(): void {
    const { command, intervalMs, logger } = this.#opts;
    const withEnergy = this.#withEnergy;
    const args = nvidiaSmiArgs(intervalMs, withEnergy);
    const startedAt = this.#opts.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    let output = '';
    const keep = (text: string): void => {
      if (output.length < OUTPUT_KEPT) output += text.slice(0, OUTPUT_KEPT - output.length);
    };
    let absent = false;
    let resolveExited!: () => void;
    this.#exited = new Promise((r) => (resolveExited = r));

    createInterface({ input: child.stdout }).on('line', (line) => {
      const sample = parseGpuLine(line, withEnergy);
      if (sample === undefined) keep(`${line}\n`);
      else this.#take(sample);
    });
    child.stderr.on('data', (chunk: Buffer) => keep(chunk.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        // No NVIDIA driver tools on this host: no GPU metrics, as Triton without DCGM GPUs.
        absent = true;
        logger.info(`${command} not found: no GPU metrics (--allow-gpu-metrics)`);
      } else keep(`${err.message}\n`);
    });
    // 'close' comes after 'error' when the spawn itself failed, and after stdout's last line.
    child.on('close', (code, signal) => {
      this.#child = undefined;
      resolveExited();
      if (this.#stopped || absent) return;
      this.#exitedEarly(code, signal, output.trim(), this.#opts.now() - startedAt);
    });
  }

  #take(sample: GpuSample): void {
    let gpu = this.#gpus.get(sample.uuid);
    if (gpu === undefined) {
      gpu = { sample, energy: new EnergyTotal() };
      this.#gpus.set(sample.uuid, gpu);
    }
    gpu.sample = sample;
    gpu.energy.add(sample, this.#opts.now());
  }

  #exitedEarly(code: number | null, signal: string | null, output: string, ranMs: number): void {
    const { logger } = this.#opts;
    // A stale sample would show a GPU frozen at its last figures: the gauges go until the next run.
    // The energy totals stay, so nv_energy_consumption never goes back.
    for (const gpu of this.#gpus.values()) gpu.sample = undefined;
    if (this.#withEnergy && rejectsEnergyField(output)) {
      this.#withEnergy = false;
      logger.info(
        'nvidia-smi does not know total_energy_consumption (an older driver): ' +
          'nv_energy_consumption is power.draw integrated over time instead',
      );
      this.#spawn();
      return;
    }
    this.#failures = ranMs >= STABLE_RUN_MS ? 1 : this.#failures + 1;
    const delayMs = Math.min(
      GPU_RESTART_MAX_MS,
      GPU_RESTART_BASE_MS * 2 ** Math.min(this.#failures - 1, 16),
    );
    const what = { code, signal, output: output.slice(0, 500), restartInMs: delayMs };
    // One warning per run of failures; the retries after it (at most one a minute) are debug.
    if (this.#failures === 1) logger.warn(what, 'nvidia-smi exited: GPU metrics paused');
    else logger.debug(what, 'nvidia-smi exited again');
    this.#restart = setTimeout(() => this.#spawn(), delayMs);
    // A pending restart must not keep the process alive on its own.
    this.#restart.unref();
  }
}
