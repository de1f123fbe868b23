// A unix datagram socket (AF_UNIX, SOCK_DGRAM) on the main thread: what the systemd notify protocol
// is sent over. Node's own `dgram` speaks only UDP, so this drives the N-API binding that
// node-unix-socket ships prebuilt for x64 Linux with glibc (no compiler, no install script).
//
// Why that binding, measured on this project's machines (Debian 12, Node 20 and 24):
// - `sd-notify` (libsystemd's sd_notify) compiles at install: without libsystemd's headers the
//   build fails, and a failed build fails `npm ci` for everyone;
// - `unix-dgram` compiles at install too (node-gyp, no prebuilt binary);
// - spawning `systemd-notify` sends from the child's PID, which `NotifyAccess=main` drops, and
//   the message can be lost when the child exits before systemd reads it;
// - node-unix-socket's prebuilt binary sends from this process, so systemd attributes every
//   datagram to the main PID. Its JavaScript wrapper package cannot be installed with `npm ci` from
//   the registry these machines reach (five of its optional platform packages are not served, so
//   the lockfile cannot list them): the project depends on the binary package alone, as an
//   optional dependency npm skips on other platforms, and does here the three calls the wrapper
//   makes. It sends the whole 108-byte `sun_path` (strace: msg_namelen=110), so an abstract
//   address (`@name`) would reach a different, zero-padded name: filesystem paths only.

import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

/** The optional dependency that carries the binding. */
export const BINDING_PACKAGE = 'node-unix-socket-linux-x64-gnu';

/** node-unix-socket 0.2.7's DgramSocketWrap, as far as this module uses it. */
interface DgramSocketWrap {
  /** Must be called with the wrap itself before anything else (the binding keeps a reference). */
  init(self: DgramSocketWrap): void;
  /**
   * Starts the socket's poll handle. Called even on a socket that only sends: closing a wrap whose
   * receiving never started crashes the process (measured: SIGSEGV in `close`).
   */
  startRecv(): void;
  bind(path: string): void;
  sendTo(
    buf: Buffer,
    offset: number,
    length: number,
    path: string,
    cb: (err: Error | undefined) => void,
  ): void;
  close(): void;
}

interface Binding {
  DgramSocketWrap: new (emitter: object) => DgramSocketWrap;
}

let binding: Binding | undefined;

function loadBinding(): Binding {
  if (binding === undefined) {
    try {
      binding = createRequire(import.meta.url)(BINDING_PACKAGE) as Binding;
    } catch (e) {
      throw new Error(
        `unix datagram sockets need the optional dependency ${BINDING_PACKAGE}, which exists for ` +
          `x64 Linux with glibc only (${process.platform}-${process.arch} here): ` +
          (e instanceof Error ? e.message.split('\n')[0] : String(e)),
      );
    }
  }
  return binding;
}

export class UnixDatagramSocket {
  private readonly wrap: DgramSocketWrap;
  /** The binding reports received datagrams and errors as `_data` / `_error` events on this. */
  private readonly events = new EventEmitter();
  private closed = false;

  /** Opens an unbound socket (enough to send). Throws where the binding is not installed. */
  constructor() {
    const { DgramSocketWrap } = loadBinding();
    // The binding calls `emit` detached from its object.
    this.events.emit = this.events.emit.bind(this.events);
    this.events.on('_error', () => this.close());
    this.wrap = new DgramSocketWrap(this.events);
    this.wrap.init(this.wrap);
    this.wrap.startRecv();
  }

  /** Binds to a filesystem path, to receive datagrams (tests and receivers). */
  bind(path: string): void {
    this.wrap.bind(path);
  }

  /** Calls `listener` with each datagram received (after `bind`). */
  onMessage(listener: (message: Buffer) => void): void {
    this.events.on('_data', (message: Buffer) => listener(message));
  }

  /** Sends one datagram to the socket bound at `path`; rejects with the system error. */
  send(message: Buffer, path: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('unix datagram socket is closed'));
    return new Promise((resolve, reject) => {
      try {
        this.wrap.sendTo(message, 0, message.length, path, (err) =>
          err === undefined || err === null ? resolve() : reject(err),
        );
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /** Closes the socket; it no longer keeps the event loop alive. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wrap.close();
  }
}
