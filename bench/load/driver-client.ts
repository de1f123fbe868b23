// The orchestrator's handle on a load-driver child process (the HTTP generator or the raw-ORT
// comparator): fork it, hand it its engine settings, then start/snapshot/stop levels.

import { fork, type ChildProcess } from 'node:child_process';
import type {
  DriverCommand,
  DriverInit,
  DriverReply,
  DriverWindow,
  LoadLevel,
} from './messages.js';

export class DriverClient {
  private readonly waiting: { resolve: (r: DriverReply) => void; reject: (e: Error) => void }[] =
    [];
  private exited: string | null = null;
  private readonly stderr: string[] = [];

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: DriverReply) => this.waiting.shift()?.resolve(reply));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk.toString('utf8'));
      if (this.stderr.length > 50) this.stderr.shift();
    });
    child.on('exit', (code, signal) => {
      this.exited = `load driver exited (${code ?? signal ?? '?'})${this.stderrTail()}`;
      for (const w of this.waiting.splice(0)) w.reject(new Error(this.exited));
    });
  }

  /** Forks `entry` and initializes its threads; resolves once every thread is ready. */
  static async start(
    entry: string,
    init: DriverInit,
    execArgv: readonly string[] = [],
  ): Promise<DriverClient> {
    // Advanced serialization carries the prebuilt request buffers as bytes, not JSON arrays.
    const child = fork(entry, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      execArgv: [...execArgv],
    });
    const client = new DriverClient(child);
    try {
      await client.call({ type: 'init', init }, 'ready');
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
    return client;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  async startLevel(level: LoadLevel): Promise<void> {
    await this.call({ type: 'start', level }, 'started');
  }

  async snapshot(): Promise<DriverWindow> {
    const r = await this.call({ type: 'snapshot' }, 'window');
    if (r.type !== 'window') throw new Error(`expected a window, got ${r.type}`);
    return r.window;
  }

  async stopLevel(): Promise<void> {
    await this.call({ type: 'stop' }, 'stopped');
  }

  /** Closes the threads and waits for the process to exit (killing it if it does not). */
  async close(): Promise<void> {
    if (this.exited !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    try {
      await this.call({ type: 'close' }, 'closed');
    } catch {
      this.child.kill('SIGKILL');
    }
    await gone;
    clearTimeout(timer);
  }

  kill(): void {
    if (this.exited === null) this.child.kill('SIGKILL');
  }

  private call(cmd: DriverCommand, expect: DriverReply['type']): Promise<DriverReply> {
    if (this.exited !== null) return Promise.reject(new Error(this.exited));
    return new Promise<DriverReply>((resolve, reject) => {
      this.waiting.push({
        resolve: (r) => {
          if (r.type === 'failed') reject(new Error(r.message));
          else if (r.type !== expect)
            reject(new Error(`load driver answered ${r.type} to ${cmd.type}`));
          else resolve(r);
        },
        reject,
      });
      this.child.send(cmd);
    });
  }

  private stderrTail(): string {
    const text = this.stderr.join('').trim();
    return text === '' ? '' : `:\n${text.slice(-2000)}`;
  }
}
