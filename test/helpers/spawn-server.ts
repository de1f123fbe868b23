// Runs the real `infernode` command in a child process (for signals, exit codes and flags), and
// waits for its "serving HTTP" log line to learn the ports.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DIST } from './paths.js';

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly base: string;
  /** The metrics endpoint (Prometheus text at `${metricsBase}/metrics`). */
  readonly metricsBase: string;
  /** host:port of the gRPC front end (with --allow-grpc, the default). */
  readonly grpcTarget: string;
  readonly lines: string[];
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

export const CLI = path.join(DIST, 'src', 'cli', 'main.js');

/** Every front end on loopback, each on a port the OS picks (the server logs them). */
export const LOOPBACK_EPHEMERAL_PORTS: readonly string[] = [
  '--http-address=127.0.0.1',
  '--http-port=0',
  '--metrics-port=0',
  '--grpc-address=127.0.0.1',
  '--grpc-port=0',
];

/** `env`: the child's environment (this process's when absent). */
export function runCli(
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | string>;
} {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env === undefined ? {} : { env }),
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer): void => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return { child, lines, exited };
}

export async function spawnServer(
  args: readonly string[],
  timeoutMs = 30_000,
  env?: NodeJS.ProcessEnv,
): Promise<SpawnedServer> {
  const run = runCli([...LOOPBACK_EPHEMERAL_PORTS, ...args], env);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = run.lines.find((l) => l.includes('"httpPort"'));
    if (line !== undefined) {
      const ports = JSON.parse(line) as { httpPort: number; metricsPort: number; grpcPort: number };
      return {
        ...run,
        base: `http://127.0.0.1:${ports.httpPort}`,
        metricsBase: `http://127.0.0.1:${ports.metricsPort}`,
        grpcTarget: `127.0.0.1:${ports.grpcPort}`,
      };
    }
    const code = await Promise.race([
      run.exited,
      new Promise((r) => setTimeout(() => r(undefined), 50)),
    ]);
    if (code !== undefined)
      throw new Error(`server exited (${String(code)}):\n${run.lines.join('\n')}`);
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`server did not start:\n${run.lines.join('\n')}`);
    }
  }
}
