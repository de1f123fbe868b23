// A server under test in its own child process (infernode, or the naive Fastify comparator):
// start it on a free port, learn the port from its JSON log line, keep its pid for CPU
// accounting, and stop it with SIGTERM (then SIGKILL) when the run is over.

import { spawn, type ChildProcess } from 'node:child_process';
import { INFERNODE_CLI } from '../paths.js';

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly base: string;
  readonly host: string;
  readonly port: number;
  /** infernode's gRPC port, from the same log line (null: the server has none). */
  readonly grpcPort: number | null;
  /** The server's log lines so far (bounded), for errors and the front-end note. */
  readonly lines: readonly string[];
  stop(): Promise<void>;
}

const MAX_LINES = 500;

/** A server that exited, or printed no port in time, before it served; with what it logged. */
export class ServerStartError extends Error {
  constructor(
    readonly serverName: string,
    /** `exited with <code or signal>`, or `no port within <n> ms`. */
    readonly outcome: string,
    readonly lines: readonly string[],
  ) {
    super(`${serverName} did not start (${outcome}):\n${lines.slice(-20).join('\n')}`);
    this.name = 'ServerStartError';
  }
}

/**
 * What went wrong, from a server's log: infernode's JSON lines at level error (50) and above, as
 * `<model>: <msg>: <reason or err>`, and any line that is not JSON (a usage error, a crash's stack).
 * Empty when there is neither.
 */
export function serverErrors(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      out.push(line.trim());
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as Record<string, unknown>;
    if (typeof e.level !== 'number' || e.level < 50) continue;
    const detail = [e.reason, e.err]
      .map((d) => (typeof d === 'string' ? d : (d as { message?: unknown } | undefined)?.message))
      .find((d): d is string => typeof d === 'string');
    const parts = [e.model, e.msg, detail].filter((p): p is string => typeof p === 'string');
    out.push(parts.join(': '));
  }
  return out.filter((l) => l !== '');
}

export async function startServer(
  name: string,
  argv: readonly string[],
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  const lines: string[] = [];
  let port = 0;
  let grpcPort: number | null = null;
  let onPort: (() => void) | null = null;
  const collect = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      if (lines.length < MAX_LINES) lines.push(line);
      if (port === 0 && line.includes('"httpPort"')) {
        try {
          const ports = JSON.parse(line) as { httpPort: number; grpcPort?: unknown };
          port = ports.httpPort;
          grpcPort = typeof ports.grpcPort === 'number' ? ports.grpcPort : null;
          onPort?.();
        } catch {
          // Not JSON after all; keep waiting.
        }
      }
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => resolve(String(code ?? signal)));
  });

  const ready = new Promise<void>((resolve) => (onPort = resolve));
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exited.then((code) => `exited with ${code}`),
    new Promise<string>(
      (resolve) => (timer = setTimeout(() => resolve(`no port within ${timeoutMs} ms`), timeoutMs)),
    ),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    child.kill('SIGKILL');
    throw new ServerStartError(name, outcome, [...lines]);
  }

  const host = '127.0.0.1';
  return {
    name,
    pid: child.pid ?? 0,
    base: `http://${host}:${port}`,
    host,
    port,
    grpcPort,
    lines,
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** infernode on 127.0.0.1 with OS-chosen ports (`env`: e.g. an allocator in LD_PRELOAD). */
export function startInfernode(
  modelRepository: string,
  extraArgs: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<ServerProcess> {
  return startServer(
    'infernode',
    [
      INFERNODE_CLI,
      `--model-repository=${modelRepository}`,
      '--http-address=127.0.0.1',
      '--http-port=0',
      '--metrics-port=0',
      '--grpc-address=127.0.0.1',
      '--grpc-port=0',
      ...extraArgs,
    ],
    60_000,
    env,
  );
}

/** A field of infernode's start-up line (the one that carries `httpPort`). */
function startupField(server: ServerProcess, field: string): unknown {
  for (const line of server.lines) {
    if (!line.includes('"httpPort"')) continue;
    try {
      return (JSON.parse(line) as Record<string, unknown>)[field];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The front end infernode reported serving with ('uws' or 'node'), from its start-up line. */
export function frontEndOf(server: ServerProcess): string | null {
  const fe = startupField(server, 'frontEnd');
  return typeof fe === 'string' ? fe : null;
}

/** The port infernode's gRPC front end listens on; null when it serves no gRPC. */
export function grpcPortOf(server: ServerProcess): number | null {
  const port = startupField(server, 'grpcPort');
  return typeof port === 'number' ? port : null;
}

/**
 * How many threads infernode serves HTTP and WebSocket on, from its start-up line ("... with uws
 * on 4 threads"; one thread says nothing); null when the line is not there.
 */
export function servedThreadsOf(server: ServerProcess): number | null {
  for (const line of server.lines) {
    if (!line.includes('"httpPort"')) continue;
    try {
      const msg = (JSON.parse(line) as { msg?: unknown }).msg;
      if (typeof msg !== 'string') return null;
      const threads = / on (\d+) threads/.exec(msg)?.[1];
      return threads === undefined ? 1 : Number(threads);
    } catch {
      return null;
    }
  }
  return null;
}

/** The port infernode's metrics endpoint listens on; null when it serves none. */
export function metricsPortOf(server: ServerProcess): number | null {
  const port = startupField(server, 'metricsPort');
  return typeof port === 'number' ? port : null;
}
