// A decoupled model's per-request `sender` (Triton's InferenceResponseSender): `send(response)` posts
// one response on the instance's channel as soon as it is checked and packed, `close()` posts the
// final flag. The run's task reply waits until every sender of the run has closed (closed()), so an
// instance executes one run at a time, responses included; execute()'s return value is ignored.

import type { WireError } from '../../errors.js';
import type { SenderFinal, SenderResponse } from './channel-messages.js';
import { checkResponse, packResponses, type ResponseRules } from './js-responses.js';

export interface ResponseSender {
  /** One response: `{ outputs }`, or an Error that answers this response only. */
  send(response: unknown): void;
  /** The final flag: no response follows. Idempotent. */
  close(): void;
}

/** What a run's senders share. */
export interface SenderRun {
  readonly run: number;
  readonly wanted: readonly string[];
  /** Per member: its rows (undefined when the model does not batch). */
  readonly rows: readonly (number | undefined)[];
  readonly rules: ResponseRules;
  readonly post: (m: SenderResponse | SenderFinal) => void;
  /** A model error, prefixed and scrubbed as the run's other errors are. */
  readonly modelError: (what: string, e: unknown) => WireError;
}

export class RunSenders {
  readonly senders: readonly ResponseSender[];
  readonly #open: Set<number>;
  #allClosed!: () => void;
  readonly #closed = new Promise<void>((resolve) => (this.#allClosed = resolve));

  constructor(private readonly r: SenderRun) {
    this.#open = new Set(r.rows.map((_, i) => i));
    this.senders = r.rows.map((_, i) => ({
      send: (response: unknown) => this.#send(i, response),
      close: () => this.#close(i),
    }));
    if (this.#open.size === 0) this.#allClosed();
  }

  /** Resolves once every sender has closed. */
  closed(): Promise<void> {
    return this.#closed;
  }

  /** execute() failed: each request still open gets the error as its last response. */
  failOpen(error: WireError): void {
    for (const i of [...this.#open]) {
      this.r.post({ type: 'response', run: this.r.run, member: i, ok: false, error });
      this.#close(i);
    }
  }

  #send(member: number, response: unknown): void {
    const { run, post } = this.r;
    if (!this.#open.has(member)) {
      throw new Error(`request ${member}: send() after close(): its final response was sent`);
    }
    const which = this.r.rows.length > 1 ? `response to request ${member}` : 'a response';
    if (response instanceof Error) {
      post({ type: 'response', run, member, ok: false, error: this.r.modelError(which, response) });
      return;
    }
    try {
      const checked = checkResponse(response, this.r.wanted, this.r.rows[member], this.r.rules);
      const outputs = packResponses([checked])[0] ?? [];
      post({ type: 'response', run, member, ok: true, outputs });
    } catch (e) {
      post({ type: 'response', run, member, ok: false, error: this.r.modelError(which, e) });
    }
  }

  #close(member: number): void {
    if (!this.#open.delete(member)) return;
    this.r.post({ type: 'final', run: this.r.run, member });
    if (this.#open.size === 0) this.#allClosed();
  }
}
