// A gRPC channel of the load generator: one HTTP/2 connection of its own (node:http2's client, not
// grpc-js), connected before any request, and the headers every call opens with. grpc-js builds a
// call object, metadata, a deadline, filters and a serializer per call, and cost the generator
// 5-10x the HTTP generator's CPU per request on the cores it shares with the server; here a call
// is one HTTP/2 stream with constant headers and pre-framed bytes.

import http2 from 'node:http2';
import net from 'node:net';
import { status } from '@grpc/grpc-js';
import type { RequestOutcome } from './multiplexed-connection.js';

export interface GrpcTarget {
  readonly host: string;
  readonly port: number;
}

export type GrpcOutcomeCallback<C> = (conn: C, outcome: RequestOutcome) => void;

/** One object per RPC, reused by every call (node:http2 copies the headers it is given). */
export function grpcCallHeaders(path: string): http2.OutgoingHttpHeaders {
  return Object.freeze({
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
}

/**
 * Flow-control windows far above a benchmark's bytes in flight (64 requests per connection), so
 * neither side waits on a WINDOW_UPDATE: the HTTP/2 defaults (64 KiB) stall large tensors.
 */
const WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * A new HTTP/2 connection to `target`, connected: resolves once the server's SETTINGS arrived, so
 * connection set-up never lands in a latency.
 */
export function connectSession(
  target: GrpcTarget,
  timeoutMs: number,
): Promise<http2.ClientHttp2Session> {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${host}:${target.port}`, {
      settings: { initialWindowSize: WINDOW_BYTES, enablePush: false },
      // The generator's own requests: node:http2's default cap (100) is not the server's limit.
      peerMaxConcurrentStreams: 1 << 16,
      createConnection: () => {
        // Nagle's algorithm would hold small frames back waiting for an ACK: pure added latency.
        const socket = net.connect({ host: target.host, port: target.port });
        socket.setNoDelay(true);
        return socket;
      },
    });
    const fail = (reason: string): void => {
      clearTimeout(timer);
      session.destroy();
      reject(new Error(`no gRPC connection within ${timeoutMs} ms: ${reason}`));
    };
    const timer = setTimeout(() => fail('timed out'), timeoutMs);
    session.once('error', (e) => fail(e.message));
    session.once('remoteSettings', () => {
      clearTimeout(timer);
      session.removeAllListeners('error');
      session.setLocalWindowSize(WINDOW_BYTES);
      resolve(session);
    });
  });
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
