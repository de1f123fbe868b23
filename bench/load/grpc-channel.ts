// A gRPC channel of the load generator: one HTTP/2 connection of its own (the raw client of
// h2-client.ts, not grpc-js nor node:http2), connected before any request, the header block every
// call opens with, and the reading of a call's status. grpc-js builds a call object, metadata, a
// deadline, filters and a serializer per call, and node:http2 a stream object with its events and
// header objects; either cost the generator several times the HTTP generator's CPU per request on
// the cores it shares with the server. Here a call is a constant header block and pre-framed bytes.

import { status } from '@grpc/grpc-js';
import { H2Client, type H2Target } from './h2-client.js';
import { encodeHeaderBlock, type HeaderField } from './h2-header-block.js';
import type { RequestOutcome } from './multiplexed-connection.js';

export interface GrpcTarget extends H2Target {
  /** The deadline every call declares (`grpc-timeout`), in ms; absent or 0: none. */
  readonly clientTimeoutMs?: number;
}

export type GrpcOutcomeCallback<C> = (conn: C, outcome: RequestOutcome) => void;

/** The header block of every call of RPC `path` to `target`, encoded once per connection. */
export function grpcCallHeaderBlock(target: GrpcTarget, path: string): Buffer {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return encodeHeaderBlock([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', path],
    [':authority', `${host}:${target.port}`],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    // gRPC's timeout unit "m" is milliseconds; the value is at most 8 digits.
    ...(target.clientTimeoutMs
      ? [['grpc-timeout', `${Math.min(target.clientTimeoutMs, 99_999_999)}m`] as HeaderField]
      : []),
  ]);
}

/**
 * A new HTTP/2 connection to `target`, connected: resolves once the server's SETTINGS arrived, so
 * connection set-up never lands in a latency.
 */
export function connectSession(target: GrpcTarget, timeoutMs: number): Promise<H2Client> {
  return H2Client.connect(target, timeoutMs);
}

/**
 * A call's status as its header blocks tell it: HTTP :status, then grpc-status and grpc-message
 * from the trailers (or from a trailers-only answer's one block).
 */
export class GrpcCallStatus {
  httpStatus: string | undefined = undefined;
  status: string | undefined = undefined;
  message: string | undefined = undefined;

  read(fields: readonly HeaderField[]): void {
    for (const [name, value] of fields) {
      if (name === ':status') this.httpStatus = value;
      else if (name === 'grpc-status') this.status = value;
      else if (name === 'grpc-message') this.message = value;
    }
  }

  get ok(): boolean {
    return this.status === '0';
  }

  /** Why the call failed, for one that did not end with grpc-status 0. */
  describe(): string {
    if (this.status === undefined && this.httpStatus !== undefined && this.httpStatus !== '200') {
      return `HTTP status ${this.httpStatus} with no grpc-status`;
    }
    return describeStatus(this.status, this.message);
  }
}

/** `STATUS: message` of a call that ended with a non-OK grpc-status, as grpc-js spells it. */
export function describeStatus(code: string | undefined, message: string | undefined): string {
  const n = Number(code);
  const name = code === undefined ? 'no grpc-status' : (status[n] ?? `status ${code}`);
  return `${name}: ${message === undefined ? '' : percentDecoded(message)}`;
}

/** grpc-message is percent-encoded (gRPC over HTTP/2); a malformed one is shown as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
