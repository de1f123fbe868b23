// The raw ONNX Runtime comparator: `session.run` in a loop on one thread, with no server, no
// network and no serialization — the most this machine can do with this model and batch size.
// Load is modelled in-process: for concurrency N, N virtual callers share the thread's session
// (each is re-issued the moment its run finishes, and waits in a FIFO while the session is busy),
// so latency includes the wait for the session exactly as a server's queue time would.

import { InferenceSession, Tensor } from 'onnxruntime-node';
import { datatypeInfo, decodeStringElements, type Datatype } from 'infernode/tooling';
import { ArrivalSchedule } from '../load/arrival-schedule.js';
import type { LoadEngine } from '../load/load-engine.js';
import type { LoadShare } from '../load/messages.js';
import type { WindowRecorder } from '../load/window-recorder.js';

export interface RawFeed {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  /** The same little-endian bytes the servers receive (request-body.ts tensorBytes). */
  readonly bytes: Uint8Array;
}

export interface RawOrtInit {
  readonly modelPath: string;
  readonly intraOpNumThreads: number;
  readonly interOpNumThreads: number;
  /** One entry per input-data set; runs cycle through them. */
  readonly feeds: readonly (readonly RawFeed[])[];
}

function toTensor(feed: RawFeed): Tensor {
  const info = datatypeInfo(feed.datatype);
  const dims = [...feed.shape];
  if (info.ort === null) throw new Error(`${feed.datatype} has no onnxruntime-node tensor type`);
  if (info.ort === 'string') {
    const count = dims.reduce((a, b) => a * b, 1);
    return new Tensor('string', decodeStringElements(feed.bytes, count, feed.name), dims);
  }
  if (info.array === null) throw new Error(`${feed.datatype} has no TypedArray`);
  // A fresh, aligned copy: the bytes may sit at any offset of a structured-clone buffer.
  const copy = feed.bytes.slice();
  const data = new info.array(copy.buffer, 0, copy.byteLength / info.byteSize);
  return new Tensor(info.ort, data as Float32Array, dims);
}

export class RawOrtEngine implements LoadEngine {
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private waiting = 0;
  private next = 0;
  private busy = false;

  private constructor(
    private readonly session: InferenceSession,
    private readonly feeds: readonly Record<string, Tensor>[],
  ) {}

  static async create(init: RawOrtInit): Promise<RawOrtEngine> {
    const session = await InferenceSession.create(init.modelPath, {
      intraOpNumThreads: init.intraOpNumThreads,
      interOpNumThreads: init.interOpNumThreads,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const feeds = init.feeds.map((set) =>
      Object.fromEntries(set.map((f) => [f.name, toTensor(f)])),
    );
    if (feeds.length === 0) throw new Error('raw ORT comparator: no input data');
    const engine = new RawOrtEngine(session, feeds);
    // One run before any measurement, as infernode's own warm-up does for its sessions.
    await session.run(feeds[0] as Record<string, Tensor>);
    return engine;
  }

  start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    this.running = true;
    switch (share.kind) {
      case 'concurrency':
        if (share.concurrency > 0) this.loop = this.closedLoop(share.concurrency, recorder);
        break;
      case 'request-rate':
        if (share.rate > 0) this.loop = this.openLoop(share, recorder);
        break;
    }
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  inFlight(): number {
    return this.busy ? 1 : 0;
  }

  queued(): number {
    return this.waiting;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.session.release();
  }

  private async runOnce(): Promise<void> {
    const feeds = this.feeds[this.next] as Record<string, Tensor>;
    this.next = (this.next + 1) % this.feeds.length;
    // session.run defers the (synchronous) native run by a setImmediate, so the thread's message
    // port is served between runs: snapshots and stop arrive without a separate timer.
    this.busy = true;
    try {
      await this.session.run(feeds);
    } finally {
      this.busy = false;
    }
  }

  /** N callers, one session: a FIFO of the times each caller issued its request. */
  private async closedLoop(callers: number, recorder: WindowRecorder): Promise<void> {
    const issued: number[] = Array.from({ length: callers }, () => performance.now());
    while (this.running) {
      const t0 = issued.shift() as number;
      this.waiting = issued.length;
      await this.runOnce();
      const done = performance.now();
      recorder.record((done - t0) * 1000, 0, 0);
      issued.push(done);
    }
    this.waiting = 0;
  }

  /** Arrivals at scheduled times, served in order; latency counts from the intended time. */
  private async openLoop(
    share: Extract<LoadShare, { kind: 'request-rate' }>,
    recorder: WindowRecorder,
  ): Promise<void> {
    const schedule = new ArrivalSchedule(
      performance.now(),
      share.rate,
      share.distribution,
      share.seed,
      share.phase,
    );
    const due: number[] = [];
    let head = 0;
    while (this.running) {
      const now = performance.now();
      while (schedule.peek() <= now) due.push(schedule.take());
      if (head === due.length) {
        await new Promise((r) => setTimeout(r, Math.max(0, schedule.peek() - now)));
        continue;
      }
      const intended = due[head] as number;
      head += 1;
      this.waiting = due.length - head;
      recorder.lag((performance.now() - intended) * 1000);
      await this.runOnce();
      recorder.record((performance.now() - intended) * 1000, 0, 0);
      if (head > 1024 && head * 2 > due.length) {
        due.splice(0, head);
        head = 0;
      }
    }
    this.waiting = 0;
  }
}
