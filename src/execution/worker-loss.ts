// The ways a model instance loses its worker, each worded and counted once; model-instance.ts acts on
// the description (`WorkerLoss`). A description holds the client-safe reason the instance keeps while
// it has no worker, the error line logged with the next attempt, how the restart back-off counts the
// loss (restart-backoff.ts) and, for a loss while the pool starts, the load's failure; the reply of
// the run that had the worker is worded here too.
//
// What a loss is, and what happens to the run it had:
// - the worker thread dies (`process.exit`, an uncaught error): piscina fails its task, the run gets
//   WORKER_FAILED, and a new worker replaces it;
// - the task handler throws (a bug outside ORT): the run gets WORKER_FAILED and the worker is
//   recycled, since its state is suspect. Terminating it is safe: it runs one task at a time and that
//   task has returned, so nothing of it is inside ORT;
// - a replacement whose session fails to load is retired and retried;
// - a JavaScript worker (its backend sets limits) not ready within `limits.startMs` is terminated,
//   and one whose run outlives `limits.runMs` is terminated and replaced (the run gets
//   MODEL_EXECUTE_TIMEOUT).
// An ORT error inside session.run is not a loss: it is the run's reply (INFER_FAILED) and the
// session keeps serving, as in Triton (see docs/architecture.md, "Worker failures").

import type { WireError } from '../errors.js';
import type { InstanceContext } from './instance-context.js';

/** A thrown value as `Name: message` (an Error) or its string, for messages and logs. */
export function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** One lost worker, as its instance acts on it (ModelInstance's `drop`). */
export interface WorkerLoss {
  /**
   * How the back-off counts it: `lost`, a worker lost (healthy, so replaced at once, if it was ready
   * and had answered a run or stayed up long enough); `failed-start`, a replacement never ready.
   */
  readonly backoff:
    { readonly kind: 'lost'; readonly wasReady: boolean } | { readonly kind: 'failed-start' };
  /** Client-safe: the instance's `lastFailure` until a worker is up again. */
  readonly lastFailure: string;
  /** Logged at error level, with when the next worker starts. */
  readonly log: string;
  /**
   * Before the pool serves (during its start), this loss fails the load instead of being replaced:
   * the load's failure, and the line logged. Absent when the loss is replaced even then.
   */
  readonly atStart?: { readonly failure: string; readonly log: string };
}

/** One instance's losses, worded with its name and its group's. */
export class WorkerLosses {
  constructor(
    /** The instance's name (`add_0`). */
    private readonly name: string,
    private readonly ctx: Pick<InstanceContext, 'group' | 'scrub'>,
  ) {}

  /** The worker's thread is gone: `busy` in a run, or idle (`wasReady`), or starting. */
  threadDied(cause: string, wasReady: boolean, busy: boolean): WorkerLoss {
    const during = busy ? 'during a request' : wasReady ? 'while idle' : 'while starting';
    return {
      backoff: { kind: 'lost', wasReady },
      lastFailure: this.ctx.scrub(`its worker died ${during} (${cause})`),
      log: `instance ${this.name} died ${during} (${cause})`,
      atStart: {
        failure: this.ctx.scrub(`its worker died before its session was ready: ${cause}`),
        log: `an instance worker of ${this.ctx.group} died: ${cause}`,
      },
    };
  }

  /** The task handler threw `e`: the (idle) worker is retired and another started. */
  handlerThrew(e: unknown, wasReady: boolean): WorkerLoss {
    const stack = e instanceof Error && e.stack !== undefined ? e.stack : describeError(e);
    return {
      backoff: { kind: 'lost', wasReady },
      lastFailure: this.ctx.scrub(`its worker threw during a request (${describeError(e)})`),
      log: `instance ${this.name} threw during a request, restarting its worker: ${stack}`,
    };
  }

  /** A run outlived its timeout (`why`): its (JavaScript) worker is terminated, another started. */
  runTimedOut(why: string): WorkerLoss {
    return {
      // A hang after the worker has answered is a one-off: the replacement starts at once. A worker
      // that hangs again before answering anything is in a loop, and backs off like a crash loop.
      backoff: { kind: 'lost', wasReady: true },
      lastFailure: this.ctx.scrub(`its worker was terminated: ${why}`),
      log: `instance ${this.name}: ${why}; terminating its worker`,
    };
  }

  /**
   * A JavaScript worker still not ready `ms` after it started (initialize() hangs, or loops): it is
   * terminated, which is safe as it holds no ORT session. During the pool's start that fails the
   * load; for a replacement it counts as a failure, retried after the back-off.
   */
  startTimedOut(ms: number): WorkerLoss {
    const why =
      `initialize() (with the module's import and the warmup) did not finish within ${ms} ms ` +
      `(parameter initialize_timeout_ms); its worker was terminated`;
    return {
      backoff: { kind: 'failed-start' },
      lastFailure: why,
      log: `the replacement for instance ${this.name}: ${why}`,
      atStart: { failure: why, log: `instance ${this.name}: ${why}` },
    };
  }

  /**
   * A replacement could not create its session (`message`, already scrubbed by the worker): it
   * holds no session and no task, so terminating it is safe, and it is tried again later.
   */
  sessionFailed(message: string): WorkerLoss {
    return {
      backoff: { kind: 'failed-start' },
      lastFailure: message,
      log: `the replacement for instance ${this.name} failed to load: ${message}`,
    };
  }

  /** The reply of the run whose task handler threw `e` (`where` names the instance). */
  threwReply(where: string, e: unknown): WireError {
    return {
      code: 'WORKER_FAILED',
      message:
        `${where} failed during the request (${this.ctx.scrub(describeError(e))}); ` +
        `its worker is being restarted`,
    };
  }

  /** The reply of the run whose worker's thread died of `cause`. */
  diedReply(where: string, cause: string): WireError {
    return {
      code: 'WORKER_FAILED',
      message: `${where} exited during the request (${this.ctx.scrub(cause)}); it is being replaced`,
    };
  }

  /** The reply of the run that outlived `limits.runMs` (`ms`). */
  timedOutReply(where: string, ms: number): WireError {
    const message =
      `${where}: execute() did not settle within ${ms} ms (parameter execute_timeout_ms); ` +
      `its worker is being replaced`;
    return { code: 'MODEL_EXECUTE_TIMEOUT', message };
  }
}
