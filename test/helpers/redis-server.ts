// Debian's redis-server, started by a test on a free loopback port with no persistence, killed and
// restarted on the same port. Installed best effort by .ci/run: a suite asks `redisMissing()` first
// and skips with its reason when there is none.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/http/free-port.js';

/** Why Redis tests cannot run here, or undefined when redis-server is installed. */
export function redisMissing(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0
    ? undefined
    : 'redis-server is not installed (.ci/run installs it best effort: apt-get install redis-server)';
}

export class RedisProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly tlsArgs: readonly string[] = [],
  ) {}

  /** A redis-server on a free port, accepting connections. */
  static async start(): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort('127.0.0.1'));
    await redis.restart();
    return redis;
  }

  /**
   * A redis-server speaking TLS only on a free port (plain port off), with this certificate, key
   * and CA (client certificates not asked for).
   */
  static async startTls(cert: string, key: string, ca: string): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort('127.0.0.1'), [
      ...['--tls-cert-file', cert, '--tls-key-file', key, '--tls-ca-cert-file', ca],
      ...['--tls-auth-clients', 'no'],
    ]);
    await redis.restart();
    return redis;
  }

  /** A free port with no Redis on it (yet): `start` one there later with `restart`. */
  static async reserve(): Promise<RedisProcess> {
    return new RedisProcess(await freePort('127.0.0.1'));
  }

  /** Starts redis-server on this port and waits until it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        ...(this.tlsArgs.length === 0
          ? ['--port', String(this.port)]
          : ['--port', '0', '--tls-port', String(this.port), ...this.tlsArgs]),
        ...['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        // DEBUG SLEEP makes a slow Redis (off by default since Redis 7).
        ...['--enable-debug-command', 'yes'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer): void => {
        out += d.toString('utf8');
        if (out.includes('Ready to accept connections')) {
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
    child.stdout?.resume();
    child.stderr?.resume();
  }

  /** Kills it at once (SIGKILL: no goodbye to clients) and waits for the exit. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
