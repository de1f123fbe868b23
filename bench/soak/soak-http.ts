// The soak's HTTP client: one request over a keep-alive node:http agent, answered with its status
// (or the transport error), and a request the client abandons part-way (socket destroyed after
// part of the body, or after the whole body while the server is working on it). node:http rather
// than the comparison generator's raw sockets: the soak measures the server's memory, not its
// throughput, and aborting mid-body is one call here.

import http from 'node:http';

export interface HttpTarget {
  readonly host: string;
  readonly port: number;
  readonly agent: http.Agent;
}

export interface HttpAnswer {
  /** The status, or null when the exchange failed before one arrived. */
  readonly status: number | null;
  readonly error: string | null;
  readonly bodySample: string;
}

export interface HttpCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string | number>>;
  readonly body?: Buffer;
}

/** Sends `call` and reads the whole answer. */
export function httpRequest(target: HttpTarget, call: HttpCall): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: target.host,
        port: target.port,
        agent: target.agent,
        method: call.method,
        path: call.path,
        headers: { ...call.headers, 'content-length': call.body?.length ?? 0 },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < 200) {
            chunks.push(c);
            kept += c.length;
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? null,
            error: null,
            bodySample: Buffer.concat(chunks).toString('utf8').slice(0, 200),
          }),
        );
        res.on('error', (e) => resolve({ status: null, error: e.message, bodySample: '' }));
      },
    );
    req.on('error', (e) => resolve({ status: null, error: e.message, bodySample: '' }));
    req.end(call.body);
  });
}

/** Where the client gives up: after `fraction` of the body, or `afterMs` past the whole of it. */
export type AbortPoint =
  | { readonly kind: 'mid-body'; readonly fraction: number }
  | { readonly kind: 'after-body'; readonly afterMs: number };

/**
 * Sends `call` on a fresh connection (an aborted one cannot go back to the agent) and destroys the
 * socket at `point`. Resolves with the status if the answer beat the abort, else null.
 */
export function abortedHttpRequest(
  target: HttpTarget,
  call: HttpCall,
  point: AbortPoint,
): Promise<number | null> {
  return new Promise((resolve) => {
    let status: number | null = null;
    const req = http.request({
      host: target.host,
      port: target.port,
      agent: false,
      method: call.method,
      path: call.path,
      headers: { ...call.headers, 'content-length': call.body?.length ?? 0 },
    });
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      res.resume();
    });
    req.on('error', () => undefined); // the abort itself surfaces here
    req.on('close', () => resolve(status));
    const body = call.body ?? Buffer.alloc(0);
    if (point.kind === 'mid-body') {
      const cut = Math.max(1, Math.floor(body.length * point.fraction));
      req.write(body.subarray(0, cut), () => setTimeout(() => req.destroy(), 5));
    } else {
      req.end(body, () => setTimeout(() => req.destroy(), point.afterMs));
    }
  });
}
