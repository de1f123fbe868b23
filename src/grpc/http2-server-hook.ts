// Reaches the node:http2 server grpc-js listens with, which grpc-js creates inside bindAsync and
// exposes no hook for: this wraps the Server's own factory method, so each server it returns is
// handed to `configure` before it listens. The gRPC front end uses it to take some streams before
// grpc-js sees them (unary-infer.ts) and to turn Nagle's algorithm off on every connection.
// @grpc/grpc-js is pinned to an exact version in package.json; if a release drops the method, this
// throws at start-up (and the gRPC tests fail) rather than silently serving without either.

import type http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { Server } from '@grpc/grpc-js';

/** Returns true when it took the stream (and answers it itself). */
export type StreamTaker = (
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
) => boolean;

type StreamListener = (...args: unknown[]) => void;

export function onHttp2Server(server: Server, configure: (h2: http2.Http2Server) => void): void {
  const inner = server as unknown as {
    createHttp2Server?: (this: unknown, credentials: unknown) => http2.Http2Server;
  };
  const create = inner.createHttp2Server;
  if (typeof create !== 'function') {
    throw new Error('@grpc/grpc-js has no Server.createHttp2Server to configure its HTTP/2 server');
  }
  inner.createHttp2Server = function (this: unknown, credentials: unknown): http2.Http2Server {
    const h2 = create.call(this, credentials);
    configure(h2);
    return h2;
  };
}

/**
 * Offers each new stream to `take` first; the streams it leaves go to grpc-js's own listeners,
 * unchanged.
 */
export function routeStreams(h2: http2.Http2Server, take: StreamTaker): void {
  const grpcListeners = h2.listeners('stream') as StreamListener[];
  h2.removeAllListeners('stream');
  h2.on('stream', (stream, headers, ...rest) => {
    if (take(stream, headers)) return;
    for (const l of grpcListeners) l.call(h2, stream, headers, ...rest);
  });
}

/**
 * TCP_NODELAY on every accepted connection. A unary answer leaves as three writes (headers, the
 * message, then the trailers once the message is flushed); with Nagle's algorithm the trailers
 * wait for the client's ACK of the message, which a client may delay by up to 40 ms.
 */
export function disableNagle(h2: http2.Http2Server): void {
  h2.prependListener('connection', (socket: Socket) => socket.setNoDelay(true));
}

/** Bytes a client may send ahead on one connection before the server reads. */
const CONNECTION_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * Bytes a client may send ahead on one stream before the server reads. node:http2 takes a paused
 * stream's DATA into memory up to this window (it replenishes only the connection's window), so a
 * stream that stops reading holds this much request data: each ModelStreamInfer stream reserves it
 * from the client-memory budget. 1 MiB still lets one stream carry ~100 MB/s at a 10 ms round trip.
 */
export const STREAM_WINDOW_BYTES = 1024 * 1024;

/**
 * A connection window far above HTTP/2's 64 KiB default: with many calls in flight on one
 * connection (64 requests of 3 KiB already exceed it), a client otherwise waits on WINDOW_UPDATEs.
 * Each stream's own window is STREAM_WINDOW_BYTES.
 */
export function widenReceiveWindows(h2: http2.Http2Server): void {
  h2.updateSettings({ initialWindowSize: STREAM_WINDOW_BYTES });
  h2.on('session', (session: http2.ServerHttp2Session) => {
    session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
  });
}

/**
 * SO_REUSEPORT on the listening socket (--reuse-grpc-port), so several processes can serve one
 * port: grpc-js listens with an address object and no way to add options, so its `listen` call
 * gets `reusePort: true` added. node:http2 honours it from Node 22.12 on (the caller checks).
 */
export function listenReusingPort(h2: http2.Http2Server): void {
  const listen = h2.listen.bind(h2) as (...args: unknown[]) => unknown;
  (h2 as unknown as { listen: (...args: unknown[]) => unknown }).listen = (...args: unknown[]) => {
    const [address, ...rest] = args;
    if (typeof address !== 'object' || address === null) return listen(...args);
    return listen({ ...address, reusePort: true }, ...rest);
  };
}
