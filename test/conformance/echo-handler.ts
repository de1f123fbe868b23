// The handler every conformance case runs behind: it records each call and answers with what it
// received (method, path, query, selected headers, body length and SHA-256), or the body itself.
// A few paths hold the call open (until released, aborted or a barrier fills) so cases can act
// while a call is in flight without any timing.

import type { AbortLike } from '../../src/execution/abort-like.js';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HttpCall, HttpHandler, HttpReply } from '../../src/http/front-end.js';

export const SELECTED_HEADERS = ['content-type', 'x-request-id', 'x-multi'] as const;

export interface EchoSummary {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string | null>>;
  readonly length: number;
  readonly sha256: string;
}

export interface RecordedCall {
  readonly summary: EchoSummary;
  readonly signal: AbortLike;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class EchoState {
  readonly calls: RecordedCall[] = [];
  /** onFinished outcomes, by request path. */
  readonly finished: { path: string; delivered: boolean }[] = [];
  readonly #callWaiters: { path: string; resolve: (call: RecordedCall) => void }[] = [];
  readonly #finishWaiters: { path: string; resolve: (delivered: boolean) => void }[] = [];
  readonly #gates = new Map<string, () => void>();
  readonly #barrier: { waiting: (() => void)[] } = { waiting: [] };

  readonly handler: HttpHandler = (call) => this.#handle(call);

  /** Resolves with the first recorded call to `path` (past or future). */
  callTo(path: string): Promise<RecordedCall> {
    const seen = this.calls.find((c) => c.summary.path === path);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#callWaiters.push({ path, resolve }));
  }

  /** Resolves with the onFinished outcome of the reply to `path`. */
  finishOf(path: string): Promise<boolean> {
    const seen = this.finished.find((f) => f.path === path);
    if (seen !== undefined) return Promise.resolve(seen.delivered);
    return new Promise((resolve) => this.#finishWaiters.push({ path, resolve }));
  }

  /** Lets a held call (/hold/...) return its reply. */
  release(path: string): void {
    const open = this.#gates.get(path);
    if (open === undefined) throw new Error(`no call is held at ${path}`);
    open();
  }

  async #handle(call: HttpCall): Promise<HttpReply> {
    // Yield first: a body that still pointed into the library's reused receive memory would be
    // overwritten or neutered by now, and its checksum would not match.
    await nextTurn();
    const summary = summarize(call);
    const recorded = { summary, signal: call.signal };
    this.calls.push(recorded);
    for (const w of this.#callWaiters.filter((w) => w.path === call.path)) w.resolve(recorded);

    const path = call.path;
    if (path.startsWith('/hold/')) {
      await new Promise<void>((resolve) => this.#gates.set(path, resolve));
    } else if (path.startsWith('/barrier/')) {
      await this.#arriveAtBarrier(Number(path.slice('/barrier/'.length)));
    } else if (path === '/throw') {
      throw new Error('secret internal detail /etc/passwd');
    } else if (path === '/bad-header') {
      return this.#tracked(path, {
        status: 200,
        headers: { 'x-evil': 'a\r\nset-cookie: x' },
        body: '',
      });
    } else if (path === '/chunk-edges') {
      const parts = [
        new Uint8Array(0),
        bytes('a'),
        new Uint8Array(0),
        bytes('bc'),
        new Uint8Array(0),
      ];
      return this.#tracked(path, { status: 200, body: parts });
    } else if (path === '/empty-list') {
      return this.#tracked(path, { status: 204, body: [] });
    } else if (path === '/bytes') {
      return this.#tracked(path, bytesReply(call, summary));
    }
    return this.#tracked(path, {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(summary),
    });
  }

  #tracked(path: string, reply: HttpReply): HttpReply {
    return {
      ...reply,
      onFinished: (delivered) => {
        this.finished.push({ path, delivered });
        for (const w of this.#finishWaiters.filter((w) => w.path === path)) w.resolve(delivered);
      },
    };
  }

  async #arriveAtBarrier(size: number): Promise<void> {
    const arrived = new Promise<void>((resolve) => this.#barrier.waiting.push(resolve));
    if (this.#barrier.waiting.length >= size) {
      for (const open of this.#barrier.waiting.splice(0)) open();
    }
    await arrived;
  }
}

function summarize(call: HttpCall): EchoSummary {
  const headers: Record<string, string | null> = {};
  for (const name of SELECTED_HEADERS) headers[name] = call.header(name) ?? null;
  return {
    method: call.method,
    path: call.path,
    query: call.query,
    headers,
    length: call.body.byteLength,
    sha256: sha256(call.body),
  };
}

/**
 * The body sent back as bytes. `chunks=N` splits it into N views; `shared=1` first copies it into a
 * SharedArrayBuffer, the memory binary tensor replies are views of.
 */
function bytesReply(call: HttpCall, summary: EchoSummary): HttpReply {
  const query = new URLSearchParams(call.query);
  let body = call.body;
  if (query.get('shared') === '1') {
    const shared = new Uint8Array(new SharedArrayBuffer(body.byteLength));
    shared.set(body);
    body = shared;
  }
  const count = Number(query.get('chunks') ?? '1');
  const chunks: Uint8Array[] = [];
  const step = Math.ceil(body.byteLength / count);
  for (let at = 0; at < body.byteLength; at += step) chunks.push(body.subarray(at, at + step));
  return {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'x-echo': JSON.stringify(summary) },
    body: count === 1 ? body : chunks,
  };
}

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
