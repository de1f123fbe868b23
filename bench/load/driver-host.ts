// The process side of the load driver (runs in a child process of the orchestrator): starts the
// load threads, splits each level between them, and merges their windows into one, adding the
// process's CPU time. The generator and the raw-ORT comparator are both this host with a
// different engine, so they are measured by exactly the same code.

import { MessageChannel, Worker } from 'node:worker_threads';
import { encodeHistogram, mergeEncoded } from '../measure/latency-histogram.js';
import type { LoadEngine } from './load-engine.js';
import {
  splitLevel,
  type DriverCommand,
  type DriverReply,
  type DriverWindow,
  type LoadShare,
  type ThreadCommand,
  type ThreadReply,
  type ThreadWindow,
} from './messages.js';
import { serveThread } from './thread-host.js';

export interface DriverHostSpec {
  /** Compiled worker entry that calls serveThread with this engine. */
  readonly threadEntry: URL;
  /** The same engine, created on this process's main thread (DriverInit.threads === 0). */
  readonly createInProcess: (engine: unknown, index: number) => Promise<LoadEngine>;
}

interface Endpoint {
  postMessage(m: ThreadCommand): void;
  on(event: 'message', listener: (m: ThreadReply) => void): unknown;
}

/** One load thread seen from the driver: commands out, replies paired with them in order. */
class ThreadHandle {
  private readonly waiting: ((r: ThreadReply) => void)[] = [];
  readonly ready: Promise<ThreadReply>;

  constructor(
    private readonly endpoint: Endpoint,
    readonly dispose: () => Promise<void>,
  ) {
    this.ready = new Promise((resolve) => this.waiting.push(resolve));
    endpoint.on('message', (reply) => this.waiting.shift()?.(reply));
  }

  async send(cmd: ThreadCommand): Promise<ThreadReply> {
    const reply = new Promise<ThreadReply>((resolve) => this.waiting.push(resolve));
    this.endpoint.postMessage(cmd);
    const r = await reply;
    if (r.type === 'failed') throw new Error(r.message);
    return r;
  }
}

function spawnThreads(spec: DriverHostSpec, engine: unknown, threads: number): ThreadHandle[] {
  if (threads === 0) {
    const { port1, port2 } = new MessageChannel();
    serveThread(port2, () => spec.createInProcess(engine, 0));
    return [
      new ThreadHandle(port1, () => {
        port1.close();
        return Promise.resolve();
      }),
    ];
  }
  return Array.from({ length: threads }, (_, index) => {
    const worker = new Worker(spec.threadEntry, { workerData: { engine, index } });
    worker.on('error', (e) => {
      process.stderr.write(`load thread ${index} crashed: ${e.message}\n`);
      process.exit(1);
    });
    return new ThreadHandle(worker, async () => {
      await worker.terminate();
    });
  });
}

export function mergeWindows(windows: readonly ThreadWindow[]): ThreadWindow {
  const first = windows[0];
  if (first === undefined) throw new Error('mergeWindows of no windows');
  return {
    startMs: Math.min(...windows.map((w) => w.startMs)),
    endMs: Math.max(...windows.map((w) => w.endMs)),
    completed: sum(windows, (w) => w.completed),
    errors: sum(windows, (w) => w.errors),
    histogram:
      windows.length === 1
        ? first.histogram
        : encodeHistogram(mergeEncoded(windows.map((w) => w.histogram))),
    sendUsSum: sum(windows, (w) => w.sendUsSum),
    recvUsSum: sum(windows, (w) => w.recvUsSum),
    maxLagUs: Math.max(...windows.map((w) => w.maxLagUs)),
    inFlight: sum(windows, (w) => w.inFlight),
    queued: sum(windows, (w) => w.queued),
    errorSample: windows.find((w) => w.errorSample !== null)?.errorSample ?? null,
  };
}

function sum<T>(items: readonly T[], f: (t: T) => number): number {
  return items.reduce((acc, t) => acc + f(t), 0);
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

/** Serves DriverCommands on this process's IPC channel until 'close'. */
export function serveDriver(spec: DriverHostSpec): void {
  let threads: ThreadHandle[] = [];
  let cpuMark = process.cpuUsage();
  const send = (r: DriverReply): void => {
    process.send?.(r);
  };

  const handle = async (cmd: DriverCommand): Promise<DriverReply> => {
    switch (cmd.type) {
      case 'init': {
        threads = spawnThreads(spec, cmd.init.engine, cmd.init.threads);
        const readies = await Promise.all(threads.map((t) => t.ready));
        const failed = readies.find((r) => r.type === 'failed');
        if (failed?.type === 'failed') return failed;
        return { type: 'ready' };
      }
      case 'start': {
        const shares = splitLevel(cmd.level, threads.length);
        await Promise.all(
          threads.map((t, i) => t.send({ type: 'start', share: shares[i] as LoadShare })),
        );
        cpuMark = process.cpuUsage();
        return { type: 'started' };
      }
      case 'snapshot': {
        const replies = await Promise.all(threads.map((t) => t.send({ type: 'snapshot' })));
        const cpu = process.cpuUsage(cpuMark);
        cpuMark = process.cpuUsage();
        const windows = replies.flatMap((r) => (r.type === 'window' ? [r.window] : []));
        const window: DriverWindow = {
          ...mergeWindows(windows),
          threads: threads.length,
          cpuMs: cpuMs(cpu),
        };
        return { type: 'window', window };
      }
      case 'stop':
        await Promise.all(threads.map((t) => t.send({ type: 'stop' })));
        return { type: 'stopped' };
      case 'close':
        await Promise.all(threads.map((t) => t.send({ type: 'close' })));
        await Promise.all(threads.map((t) => t.dispose()));
        return { type: 'closed' };
    }
  };

  let chain = Promise.resolve();
  process.on('message', (cmd: DriverCommand) => {
    chain = chain.then(async () => {
      let reply: DriverReply;
      try {
        reply = await handle(cmd);
      } catch (e) {
        reply = { type: 'failed', message: e instanceof Error ? e.message : String(e) };
      }
      send(reply);
      if (cmd.type === 'close') process.disconnect();
    });
  });
  // The orchestrator going away (Ctrl-C, crash) must not leave a generator hammering the server.
  process.on('disconnect', () => process.exit(0));
}
