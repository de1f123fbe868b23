// One infernode replica on a fixed loopback port, as a balancer's backend: started, waited on until
// /v2/health/ready answers 200, and stopped with SIGTERM (the drain) and its exit status.

import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { INFERNODE_CLI } from '../paths.js';

export interface Replica {
  readonly port: number;
  /** SIGTERM, then the exit status (0: the drain finished). */
  stop(): Promise<number | string>;
}

/** Flags every replica gets besides its port and repository: the drain a balancer can follow. */
export const REPLICA_FLAGS = [
  '--http-address=127.0.0.1',
  '--allow-grpc=false',
  '--metrics-port=0',
  '--drain-delay-secs=2',
  '--exit-timeout-secs=15',
] as const;

export async function startReplica(
  repository: string,
  port: number,
  timeoutMs = 60_000,
): Promise<Replica> {
  const child: ChildProcess = spawn(
    process.execPath,
    [INFERNODE_CLI, `--model-repository=${repository}`, `--http-port=${port}`, ...REPLICA_FLAGS],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const log: string[] = [];
  child.stderr?.on('data', (c: Buffer) => log.push(c.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`replica on ${port} exited:\n${log.join('')}`);
    const ready = await fetch(`http://127.0.0.1:${port}/v2/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`replica on ${port} not ready after ${timeoutMs} ms:\n${log.join('')}`);
    }
    await sleep(50);
  }
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
