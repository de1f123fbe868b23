// The worker side of BLS: the `infer` and `inferStream` functions a JavaScript model's execute()
// gets in its `context` (and initialize() in `args`). Each call is posted on the instance's channel
// and answered by the main thread (instance-channel.ts) through the data plane. Errors are values:
// a call never throws or rejects; a failure resolves to (or is yielded as) an InferError.

import { InferenceServerError } from '../../errors.js';
import { packCallInputs, readCallOptions, resultOf, type BlsResult } from './bls-tensors.js';
import type { BlsCall, MainToWorker } from './channel-messages.js';
import { InferError } from './infer-error.js';

export type InferOutcome = BlsResult | InferError;

/** What a call waits for: its reply, and for a stream each item before it. */
interface Pending {
  item?(outcome: InferOutcome): void;
  reply(outcome: InferOutcome | undefined): void;
}

export interface BlsFunctions {
  infer(model: string, inputs: unknown, options?: unknown): Promise<InferOutcome>;
  inferStream(model: string, inputs: unknown, options?: unknown): AsyncIterable<InferOutcome>;
}

export class BlsClient {
  #next = 1;
  readonly #pending = new Map<number, Pending>();

  constructor(private readonly post: (call: BlsCall) => void) {}

  /** The functions handed to the model, bound to this client. */
  functions(): BlsFunctions {
    return {
      infer: (model, inputs, options) => this.infer(model, inputs, options),
      inferStream: (model, inputs, options) => this.inferStream(model, inputs, options),
    };
  }

  /** A message from the main thread (the channel's listener calls this). */
  receive(m: MainToWorker): void {
    const pending = this.#pending.get(m.id);
    if (pending === undefined) return; // a call abandoned by its worker's previous run
    const outcome = m.ok ? resultOf(m.answer) : InferError.fromWire(m.error);
    if (m.type === 'item') {
      pending.item?.(outcome);
      return;
    }
    this.#pending.delete(m.id);
    // A stream's successful reply is its final flag alone; its error is one last item.
    pending.reply(pending.item !== undefined && m.ok ? undefined : outcome);
  }

  infer(model: string, inputs: unknown, options?: unknown): Promise<InferOutcome> {
    return new Promise((resolve) => {
      const refused = this.#start(model, inputs, options, false, {
        reply: (o) => resolve(o ?? new InferError('INTERNAL', 'a BLS call ended without a reply')),
      });
      if (refused !== undefined) resolve(refused);
    });
  }

  inferStream(model: string, inputs: unknown, options?: unknown): AsyncIterable<InferOutcome> {
    const queue: InferOutcome[] = [];
    let done = false;
    let wake: (() => void) | undefined;
    const push = (o: InferOutcome | undefined, last: boolean): void => {
      if (o !== undefined) queue.push(o);
      if (last) done = true;
      wake?.();
      wake = undefined;
    };
    const refused = this.#start(model, inputs, options, true, {
      item: (o) => push(o, false),
      reply: (o) => push(o, true),
    });
    if (refused !== undefined) push(refused, true);
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next !== undefined) {
            yield next;
            continue;
          }
          if (done) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
  }

  /** Posts the call; a call refused before it is sent comes back as its InferError. */
  #start(
    model: unknown,
    inputs: unknown,
    options: unknown,
    stream: boolean,
    pending: Pending,
  ): InferError | undefined {
    let call: BlsCall;
    try {
      if (typeof model !== 'string' || model === '') {
        return new InferError('BAD_MODEL_NAME', `BLS: expected a model name, got ${String(model)}`);
      }
      const opts = readCallOptions(options);
      call = {
        type: 'call',
        id: this.#next++,
        stream,
        model,
        inputs: packCallInputs(inputs),
        parameters: opts.parameters,
        ...(opts.version !== undefined && { version: opts.version }),
        ...(opts.outputs !== undefined && { outputs: opts.outputs }),
        ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
      };
    } catch (e) {
      if (e instanceof InferenceServerError) return new InferError(e.code, e.message);
      return new InferError('BAD_REQUEST', e instanceof Error ? e.message : String(e));
    }
    this.#pending.set(call.id, pending);
    this.post(call);
    return undefined;
  }
}
