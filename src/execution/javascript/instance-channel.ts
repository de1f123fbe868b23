// The main-thread end of one JavaScript worker's channel (channel-messages.ts). It serves the
// worker's BLS calls through the data plane (each call validated, queued, batched with the callee's
// other traffic and counted in its statistics, like any request), bounded by the call's timeout
// (default: the caller's execute_timeout_ms) and cancelled when the run that made it ends or loses
// all its requests, or when the worker goes; and it hands a decoupled model's responses to the
// requests of the run that sent them.

import type { RequestSpan } from '../../trace/request-span.js';
import type { MessagePort } from 'node:worker_threads';
import { fail, toServerError, type InferenceServerError } from '../../errors.js';
import type { DecodedRequest, InferenceResponse } from '../../protocol/inference-request.js';
import type { RunScope } from '../run-scope.js';
import { answerOf, callRequest } from './bls-tensors.js';
import {
  isWorkerToMain,
  type BlsCall,
  type MainToWorker,
  type SenderFinal,
  type SenderResponse,
} from './channel-messages.js';

/**
 * What a call passes with its request: the data plane's InferContext, restated here since
 * execution/ sits below dataplane/ (the data plane's own type is the same shape).
 */
export interface BlsCallContext {
  readonly signal: AbortSignal;
  readonly arrivalNs: number;
  /** Set for `inferStream`: a decoupled callee's responses before its final flag. */
  readonly responses?: (response: InferenceResponse | InferenceServerError) => void;
  /** The traced request the run serves: the call's span is a child of its span. */
  readonly parentSpan?: RequestSpan;
}

/** The data plane's inference entry, as BLS calls use it. */
export interface BlsHost {
  infer(
    model: string,
    version: string | undefined,
    request: DecodedRequest,
    ctx: BlsCallContext,
  ): Promise<InferenceResponse>;
}

/** The run executing on the instance: who its responses go to, and its finals so far. */
interface ActiveRun {
  readonly id: number;
  readonly scope: RunScope | undefined;
  readonly members: number;
  readonly finals: Set<number>;
  readonly controller: AbortController;
  readonly closed: () => void;
  readonly detach: () => void;
}

export interface ChannelDeps {
  /** Absent: the server gave no data plane (BLS calls fail with MODEL_NOT_READY). */
  readonly host: BlsHost | undefined;
  /** A call's timeout when it sets none: the caller's execute_timeout_ms. */
  readonly defaultTimeoutMs: number;
  /** e.g. `instance add_0 of model "add" version 1`, for messages. */
  readonly where: string;
}

export class InstanceChannel {
  readonly #calls = new Set<AbortController>();
  #run: ActiveRun | undefined;
  #closed = false;

  constructor(
    private readonly port: MessagePort,
    private readonly deps: ChannelDeps,
  ) {
    port.on('message', (m: unknown) => {
      if (isWorkerToMain(m)) this.#receive(m);
    });
    // The worker's own life keeps nothing here alive.
    port.unref();
  }

  /**
   * Run `id` starts with `members` requests. Resolves once each has had its final flag (decoupled
   * models); the run's BLS calls are cancelled when every request of `scope` is gone.
   */
  beginRun(id: number, members: number, scope: RunScope | undefined): Promise<void> {
    const controller = new AbortController();
    const signals = scope?.signals ?? [];
    const check = (): void => {
      if (signals.length > 0 && signals.every((s) => s.aborted)) {
        controller.abort(fail('CANCELLED', 'the request that made this BLS call was cancelled'));
      }
    };
    for (const s of signals) s.addEventListener('abort', check, { once: true });
    const detach = (): void => {
      for (const s of signals) s.removeEventListener('abort', check);
    };
    return new Promise<void>((resolve) => {
      this.#run = { id, scope, members, finals: new Set(), controller, closed: resolve, detach };
      if (members === 0) resolve();
    });
  }

  /** The run has ended (answered, failed or abandoned): its BLS calls still out are cancelled. */
  endRun(id: number): void {
    const run = this.#run;
    if (run === undefined || run.id !== id) return;
    this.#run = undefined;
    run.detach();
    run.controller.abort(fail('CANCELLED', 'the execute() that made this BLS call has ended'));
  }

  /** The worker is gone: every call is cancelled and nothing more is received. */
  close(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#run !== undefined) this.endRun(this.#run.id);
    for (const c of this.#calls) c.abort(fail('CANCELLED', why));
    this.port.close();
  }

  #receive(m: BlsCall | SenderResponse | SenderFinal): void {
    if (this.#closed) return;
    if (m.type === 'call') {
      void this.#serve(m);
      return;
    }
    const run = this.#run;
    if (run === undefined || run.id !== m.run) return; // a warm-up run, or one already abandoned
    if (m.type === 'final') {
      run.finals.add(m.member);
      if (run.finals.size >= run.members) run.closed();
      return;
    }
    const sink = run.scope?.sinks?.[m.member];
    if (m.ok) sink?.response(m.outputs);
    else sink?.error(m.error);
  }

  async #serve(call: BlsCall): Promise<void> {
    const own = new AbortController();
    const timeoutMs = call.timeoutMs ?? this.deps.defaultTimeoutMs;
    const timer = setTimeout(() => {
      own.abort(
        fail(
          'BLS_TIMEOUT',
          `BLS call to model '${call.model}' from ${this.deps.where} was not answered within ` +
            `${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    const signal =
      this.#run !== undefined
        ? AbortSignal.any([own.signal, this.#run.controller.signal])
        : own.signal;
    this.#calls.add(own);
    const aborted = new Promise<never>((_, reject) => {
      const stop = (): void => reject(toServerError(signal.reason));
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
    aborted.catch(() => undefined);
    const post = (m: MainToWorker): void => {
      if (!this.#closed) this.port.postMessage(m);
    };
    try {
      const host = this.deps.host;
      if (host === undefined) throw fail('MODEL_NOT_READY', 'the server is not serving yet');
      // A call of a traced request is traced under it. A call made by a batched run cannot say
      // which member it serves: it goes under the first traced member.
      const parentSpan = this.#run?.scope?.traces?.find((t) => t?.span !== undefined)?.span;
      const ctx: BlsCallContext = {
        signal,
        arrivalNs: Number(process.hrtime.bigint()),
        ...(parentSpan !== undefined && { parentSpan }),
        ...(call.stream && {
          responses: (r: InferenceResponse | InferenceServerError) => {
            if (r instanceof Error) {
              post({ type: 'item', id: call.id, ok: false, error: toServerError(r).toWire() });
            } else {
              post({ type: 'item', id: call.id, ok: true, answer: answerOf(r) });
            }
          },
        }),
      };
      const response = await Promise.race([
        host.infer(call.model, call.version, callRequest(call), ctx),
        aborted,
      ]);
      // A stream to a model that is not decoupled: its one response, then the final flag.
      if (call.stream && response.parameters?.triton_final_response !== true) {
        post({ type: 'item', id: call.id, ok: true, answer: answerOf(response) });
      }
      post({ type: 'reply', id: call.id, ok: true, answer: answerOf(response) });
    } catch (e) {
      post({ type: 'reply', id: call.id, ok: false, error: toServerError(e).toWire() });
    } finally {
      clearTimeout(timer);
      this.#calls.delete(own);
    }
  }
}
