// Shared by the worker-failure tests: a real server (in-process: real HTTP, real worker threads, real
// ONNX Runtime) whose workers are the faulty test worker, requests carrying its fault cues, the
// channel that holds and releases workers, and readers for readiness, metrics and the log.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { useWorkerFileForTests } from '../../../src/execution/onnxruntime/ort-workers.js';
import { metric } from '../../helpers/wait-for.js';
import { copyModel } from '../../helpers/temp-repository.js';
import type { TestServer } from '../../helpers/test-server.js';
import { FAULT_CHANNEL, START_FAULT_ENV } from '../execution/fixtures/faults.js';

const FAULTY_WORKER = fileURLToPath(
  new URL('../execution/fixtures/faulty-worker.js', import.meta.url),
);

/** Makes every model loaded from now on in this process run the faulty worker. */
export function useFaultyWorker(): void {
  useWorkerFileForTests(FAULTY_WORKER);
}

export function useRealWorker(): void {
  useWorkerFileForTests(undefined);
}

/** What workers started from now on do as they start ('exit', 'throw', 'hold'; undefined: load). */
export function setStartFault(fault: 'exit' | 'throw' | 'hold' | undefined): void {
  if (fault === undefined) delete process.env[START_FAULT_ENV];
  else process.env[START_FAULT_ENV] = fault;
}

/** Copies the bundled `simple` (OUTPUT0 = INPUT0 + INPUT1) into `repo` with `instances` instances. */
export async function copySimple(repo: string, instances: number): Promise<void> {
  const dir = await copyModel(repo, 'simple');
  const config = path.join(dir, 'config.pbtxt');
  const text = await readFile(config, 'utf8');
  await writeFile(config, text.replace(/count: 1,/, `count: ${instances},`));
}

/** A `simple` request whose INPUT0 starts with `first` (a FAULT cue, or any value): INPUT1 = 1s. */
export function simpleRequest(first: number): unknown {
  return {
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: [first, ...range(15)] },
      { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: Array(16).fill(1) },
    ],
    outputs: [{ name: 'OUTPUT0' }],
  };
}

/** OUTPUT0 of `simpleRequest(first)`. */
export function simpleSum(first: number): number[] {
  return [first + 1, ...range(15).map((x) => x + 1)];
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

export async function status(url: string): Promise<number> {
  return (await fetch(url)).status;
}

/** `/v2/models/<model>/ready` and `/v2/health/ready` (the server runs --strict-readiness). */
export async function readiness(t: TestServer, model: string): Promise<[number, number]> {
  return [
    await status(`${t.base}/v2/models/${model}/ready`),
    await status(`${t.base}/v2/health/ready`),
  ];
}

/** Failures of `model` version 1 counted with `reason` (BACKEND, OTHER, ...). */
export function failures(t: TestServer, model: string, reason: string): Promise<number> {
  return metric(
    t.metricsBase,
    'nv_inference_request_failure',
    `model="${model}"`,
    'version="1"',
    `reason="${reason}"`,
  );
}

export function restarts(t: TestServer, model: string): Promise<number> {
  return metric(t.metricsBase, 'infernode_instance_restarts_total', `model="${model}"`);
}

export interface LogRecord {
  readonly level: number;
  readonly time: string;
  readonly msg: string;
  readonly code?: string;
}

/** The instance pool's own records for `model` v1 at error level (pino level 50). */
export function poolErrors(t: TestServer, model: string): LogRecord[] {
  return t.logs
    .map((l) => JSON.parse(l) as LogRecord)
    .filter((r) => r.level === 50 && r.msg.startsWith(`model "${model}" v1: `));
}

/** Error-level records the front end wrote for failed requests with `code`. */
export function requestErrors(t: TestServer, code: string): LogRecord[] {
  return t.logs
    .map((l) => JSON.parse(l) as LogRecord)
    .filter((r) => r.level === 50 && r.code === code);
}

/** The test's end of the fault channel: waits for workers' HELD_* messages, posts RELEASE_*. */
export class FaultChannel {
  private readonly channel = new BroadcastChannel(FAULT_CHANNEL);
  private readonly seen: string[] = [];
  private readonly waiting: Array<{ message: string; resolve: () => void }> = [];

  constructor() {
    this.channel.onmessage = (e: unknown) => {
      const message = String((e as { data?: unknown }).data);
      const i = this.waiting.findIndex((w) => w.message === message);
      const w = i >= 0 ? this.waiting.splice(i, 1)[0] : undefined;
      if (w !== undefined) w.resolve();
      else this.seen.push(message);
    };
  }

  /** Resolves when a worker has posted `message` (at once if it already has, unconsumed). */
  next(message: string): Promise<void> {
    const i = this.seen.indexOf(message);
    if (i >= 0) {
      this.seen.splice(i, 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ message, resolve }));
  }

  post(message: string): void {
    this.channel.postMessage(message);
  }

  close(): void {
    this.channel.close();
  }
}
