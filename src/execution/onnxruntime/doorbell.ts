// The hand-off between the main thread and an ORT instance's worker on the hot path: a doorbell.
// piscina still starts, owns and destroys the worker; once its session is ready the instance gives
// it one long-running piscina task (SERVE_TASK) that serves calls until it is told to stop. A call
// is posted on a private MessageChannel that the worker does not listen on, and the main thread
// rings: it bumps a counter in a small SharedArrayBuffer and Atomics.notify-s it. The worker spins
// on that counter for at most DOORBELL_SPIN_NS, then parks in Atomics.wait; woken, it takes the call
// with receiveMessageOnPort, so no event-loop turn, piscina task record or 'message' dispatch stands
// between the ring and the handler. The reply goes back as one message on the same channel.
//
// Why the reply is still a message: measured on the 2-core machine with an idle gap between calls
// (a lone request's pattern), a 'message' listener on the main thread answered sooner (p50 50 µs
// round trip over 50 µs of work) than Atomics.waitAsync followed by receiveMessageOnPort (71 µs):
// both wake the main loop once, and waitAsync adds a promise job. piscina.run measured 96 µs.
//
// Ownership and ordering: an instance has at most one call outstanding (the pool gives it one run
// at a time; a reclaim marks it busy too; stop comes only when it is settled), so replies match
// calls in order. The worker reads a run's inputs only until it replies, as with piscina.
//
// A lone large request's buffers move rather than copy (src/memory/movable-buffers.ts): its inputs
// go in the call's transfer list, and a handler's MovedReply (moved-reply.ts) is posted as its
// reply with its output buffers transferred, exactly as piscina would have done.

import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { RunRequest, RunResponse } from '../messages.js';
import { unwrapReply } from '../moved-reply.js';

/**
 * How long a worker that has just replied keeps polling for the next call before it parks. Short:
 * on a machine with few cores a spinning worker takes the core the main thread needs to produce
 * that call, and a lone request's next call comes a whole HTTP round trip later anyway.
 */
export const DOORBELL_SPIN_NS = 10_000;

/** The long-running task's piscina name, and what it is given (the port is transferred). */
export const SERVE_TASK = 'serve';

export interface DoorbellInit {
  /** Int32 [0]: calls rung so far (wraps; only inequality is compared). */
  readonly control: SharedArrayBuffer;
  readonly port: MessagePort;
}

/** What crosses the doorbell's channel. */
export type DoorbellCall =
  | { readonly kind: 'run'; readonly request: RunRequest }
  /** RECLAIM_TASK's work (messages.ts), on the serving worker. */
  | { readonly kind: 'reclaim' }
  /** Ends the serve task; sent only when no call is outstanding. */
  | { readonly kind: 'stop' };

const RUNG = 0;

/** The main thread's side: rings the worker and resolves each call with its reply. */
export class DoorbellClient {
  readonly #rung = new Int32Array(new SharedArrayBuffer(4));
  readonly #port: MessagePort;
  readonly #remote: MessagePort;
  #pending: { resolve: (reply: unknown) => void; reject: (e: unknown) => void } | undefined;
  /** Set once the serve task has ended: every call from then on fails with it. */
  #ended: unknown;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#remote = port2;
    port1.on('message', (reply: unknown) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.resolve(reply);
    });
    // The serve task's promise, not this port, keeps the instance alive.
    port1.unref();
  }

  /** The serve task's argument; its port goes in the task's transferList. */
  get init(): DoorbellInit {
    return { control: this.#rung.buffer as SharedArrayBuffer, port: this.#remote };
  }

  /** `transfer`: the request's own buffers, moved to the worker (detached here). */
  run(request: RunRequest, transfer?: readonly ArrayBuffer[]): Promise<RunResponse> {
    return this.#call({ kind: 'run', request }, transfer) as Promise<RunResponse>;
  }

  reclaim(): Promise<void> {
    return this.#call({ kind: 'reclaim' }).then(() => undefined);
  }

  /**
   * The serve task has ended (`cause`: its rejection, or an error saying it returned): the call
   * outstanding, and every later one, fails with it. Wired once per serve task, so a run need not
   * race the task's promise (a race per run would pile reactions on a promise that lives as long
   * as the worker).
   */
  fail(cause: unknown): void {
    this.#ended ??= cause;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(this.#ended);
  }

  /** Asks the serve task to return; its promise settles when it has. */
  stop(): void {
    this.#post({ kind: 'stop' });
  }

  close(): void {
    this.#port.close();
  }

  #call(call: DoorbellCall, transfer?: readonly ArrayBuffer[]): Promise<unknown> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    if (this.#pending !== undefined) {
      // The pool never overlaps calls on one instance: this is a bug, not a client's error.
      return Promise.reject(new Error('doorbell: a call is already outstanding'));
    }
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#post(call, transfer);
    });
  }

  #post(call: DoorbellCall, transfer?: readonly ArrayBuffer[]): void {
    if (transfer === undefined || transfer.length === 0) this.#port.postMessage(call);
    else this.#port.postMessage(call, [...transfer]);
    Atomics.add(this.#rung, RUNG, 1);
    Atomics.notify(this.#rung, RUNG);
  }
}

const nowNs = (): number => Number(process.hrtime.bigint());

/**
 * The worker's side, as the body of its SERVE_TASK: waits for each ring, takes the calls it finds,
 * answers each with `handle`'s result, and returns on stop. A throw from `handle` rejects the task,
 * which the instance treats as a handler failure (it recycles the worker), as with piscina tasks.
 */
export async function serveDoorbell(
  init: DoorbellInit,
  handle: (call: Exclude<DoorbellCall, { kind: 'stop' }>) => Promise<unknown> | unknown,
): Promise<void> {
  const rung = new Int32Array(init.control);
  const port = init.port;
  let seen = 0;
  for (;;) {
    if (Atomics.load(rung, RUNG) === seen) {
      const until = nowNs() + DOORBELL_SPIN_NS;
      while (Atomics.load(rung, RUNG) === seen && nowNs() < until) {
        // A bounded spin: a call that follows at once is taken without parking the thread.
      }
      Atomics.wait(rung, RUNG, seen);
    }
    seen = Atomics.load(rung, RUNG);
    for (;;) {
      const got = receiveMessageOnPort(port);
      if (got === undefined) break;
      const call = got.message as DoorbellCall;
      if (call.kind === 'stop') {
        port.close();
        return;
      }
      const { value, transfer } = unwrapReply(await handle(call));
      port.postMessage(value, transfer);
    }
  }
}
