// systemd's service notification protocol (sd_notify(3)) for the `infernode` process: READY=1 once
// the server is first ready, STOPPING=1 when the drain starts, STATUS= lines with model counts for
// `systemctl status`, and WATCHDOG=1 from the main event loop, so that systemd restarts a process
// whose loop is stuck. Datagrams go to $NOTIFY_SOCKET over `unix-datagram.ts`.

import type { Logger } from '../logger.js';
import type { ModelState } from '../repository/model-version.js';
import type { RunningServer } from '../server.js';
import { UnixDatagramSocket } from './unix-datagram.js';

export interface NotifySettings {
  /** $NOTIFY_SOCKET: the path of systemd's notification socket. */
  readonly socketPath: string;
  /**
   * How often to send WATCHDOG=1, in ms: half of $WATCHDOG_USEC (sd_watchdog_enabled(3)'s advice),
   * when systemd set it for this process; undefined when there is no watchdog.
   */
  readonly watchdogIntervalMs: number | undefined;
}

/**
 * Reads what systemd sets for a `Type=notify` service. Undefined when $NOTIFY_SOCKET is unset (not
 * run by systemd, or not as Type=notify); throws, with a message for the log, for an address this
 * implementation cannot reach (abstract `@name` and `vsock:` addresses). The watchdog applies when
 * $WATCHDOG_USEC is a positive integer and $WATCHDOG_PID, if set, is `pid`: a child that inherited
 * the variables from its parent must not ping for it.
 */
export function notifySettings(env: NodeJS.ProcessEnv, pid: number): NotifySettings | undefined {
  const socketPath = env.NOTIFY_SOCKET;
  if (socketPath === undefined || socketPath === '') return undefined;
  if (!socketPath.startsWith('/')) {
    throw new Error(
      `NOTIFY_SOCKET=${socketPath.slice(0, 120)}: only a filesystem path is supported (abstract ` +
        `and vsock addresses are not); systemd notifications are off`,
    );
  }
  const usec = env.WATCHDOG_USEC;
  const watchdogPid = env.WATCHDOG_PID;
  const ours = watchdogPid === undefined || watchdogPid === '' || watchdogPid === String(pid);
  const watchdogIntervalMs =
    ours && usec !== undefined && /^[1-9][0-9]*$/.test(usec)
      ? Math.max(1, Number(usec) / 2000)
      : undefined;
  return { socketPath, watchdogIntervalMs };
}

/** What `systemctl status` shows while the server runs: readiness, model counts, listeners. */
export function serviceStatus(
  ready: boolean,
  models: readonly { readonly state: ModelState }[],
  ports: {
    http: number;
    grpc: number | undefined;
    metrics: number | undefined;
    /** Threads serving the HTTP port (--http-thread-count); shown when more than one. */
    httpThreads?: number;
  },
): string {
  const count = (s: ModelState): number => models.filter((m) => m.state === s).length;
  const others = (['LOADING', 'UNLOADING', 'UNAVAILABLE'] as const)
    .filter((s) => count(s) > 0)
    .map((s) => `, ${count(s)} ${s.toLowerCase()}`)
    .join('');
  const listeners = [
    `HTTP :${ports.http}` + ((ports.httpThreads ?? 1) > 1 ? ` (${ports.httpThreads} threads)` : ''),
    ...(ports.grpc !== undefined ? [`gRPC :${ports.grpc}`] : []),
    ...(ports.metrics !== undefined ? [`metrics :${ports.metrics}`] : []),
  ].join(', ');
  return (
    `${ready ? '' : 'not ready: '}serving ${models.length} model${models.length === 1 ? '' : 's'} ` +
    `(${count('READY')} ready${others}) on ${listeners}`
  );
}

/** The server as the notifier watches it. */
export interface WatchedServer {
  /** Whether /v2/health/ready answers 200 now. */
  ready(): boolean;
  /** The STATUS= text for now (`serviceStatus`). */
  status(): string;
}

/** The running server's readiness and status, as the notifier reads them. */
export function watchedServer(server: RunningServer): WatchedServer {
  const ready = (): boolean => server.dataPlane.ready();
  return {
    ready,
    status: () =>
      serviceStatus(ready(), server.registry.all(), {
        http: server.httpPort,
        grpc: server.grpcPort,
        metrics: server.metricsPort,
        httpThreads: server.httpThreads(),
      }),
  };
}

/**
 * The notifier when systemd asked for notifications ($NOTIFY_SOCKET), else undefined. When they
 * cannot be sent (an address or a platform this implementation does not reach) it says why in the
 * log and returns undefined: the server runs the same, and systemd reports the missing READY=1.
 */
export function openNotifier(
  env: NodeJS.ProcessEnv,
  pid: number,
  logger: Logger,
): SystemdNotifier | undefined {
  try {
    const settings = notifySettings(env, pid);
    return settings === undefined ? undefined : new SystemdNotifier(settings, logger);
  } catch (e) {
    logger.warn(
      { err: e instanceof Error ? e.message : String(e) },
      'systemd notifications unavailable',
    );
    return undefined;
  }
}

/**
 * How often the running server is looked at for READY=1 and STATUS= changes. Only a change is
 * sent, so this costs a few comparisons a second; READY=1 waits at most this long after readiness
 * first holds (which, in the usual case, it already does when the server has started).
 */
const STATUS_CHECK_MS = 500;

/**
 * A STATUS= field: one line (a newline would start a field of its own, and an error message can
 * carry one), short enough for systemd's 4 KiB notification buffer.
 */
function statusField(text: string): string {
  return `STATUS=${text.replace(/[\r\n]+/g, ' ').slice(0, 1024)}`;
}

export class SystemdNotifier {
  private readonly socket: UnixDatagramSocket;
  private readonly watchdogTimer: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private readySent = false;
  private lastStatus: string | undefined;
  /** Sends not yet settled, so that `close` can let the last ones out before the process exits. */
  private readonly pending = new Set<Promise<void>>();
  /** Whether the last send failed: failures are logged once, not at every ping. */
  private failing = false;

  /**
   * Opens the socket and starts the watchdog pings at once: systemd arms the watchdog at the first
   * WATCHDOG=1 and at READY=1, and the models load on worker threads while this loop stays free.
   * Throws where the datagram binding is not installed.
   */
  constructor(
    private readonly settings: NotifySettings,
    private readonly logger: Logger,
  ) {
    this.socket = new UnixDatagramSocket();
    if (settings.watchdogIntervalMs !== undefined) {
      // Pinged from a timer on the main event loop, deliberately: a loop stuck in a synchronous
      // call stops the pings, and systemd's watchdog then aborts and restarts the service.
      this.watchdogTimer = setInterval(() => this.send('WATCHDOG=1'), settings.watchdogIntervalMs);
      this.watchdogTimer.unref();
    }
  }

  /** STATUS= alone: start-up progress, or why start-up failed. */
  status(text: string): void {
    this.lastStatus = text;
    this.send(statusField(text));
  }

  /**
   * Watches the started server: READY=1 (with STATUS=) as soon as it is ready, then STATUS= when
   * the model counts change (loads and unloads through the repository API or poll mode).
   */
  watch(server: WatchedServer): void {
    const check = (): void => {
      const status = server.status();
      if (!this.readySent && server.ready()) {
        this.readySent = true;
        this.lastStatus = status;
        this.send(`READY=1\n${statusField(status)}`);
      } else if (status !== this.lastStatus) {
        this.lastStatus = status;
        this.send(statusField(status));
      }
    };
    check();
    this.statusTimer = setInterval(check, STATUS_CHECK_MS);
    this.statusTimer.unref();
  }

  /** STOPPING=1: the drain has started. Watchdog pings go on until the process exits. */
  stopping(status: string): void {
    clearInterval(this.statusTimer);
    this.lastStatus = status;
    this.send(`STOPPING=1\n${statusField(status)}`);
  }

  /** Stops the timers, waits for the datagrams already sent to leave, and closes the socket. */
  async close(): Promise<void> {
    clearInterval(this.watchdogTimer);
    clearInterval(this.statusTimer);
    await Promise.allSettled([...this.pending]);
    this.socket.close();
  }

  private send(message: string): void {
    const sent = this.socket.send(Buffer.from(message, 'utf8'), this.settings.socketPath).then(
      () => {
        if (this.failing) this.logger.info('systemd notifications reach the socket again');
        this.failing = false;
      },
      (e: unknown) => {
        if (!this.failing) {
          this.logger.warn(
            { err: e instanceof Error ? e.message : String(e), socket: this.settings.socketPath },
            'systemd notification failed',
          );
        }
        this.failing = true;
      },
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }
}
