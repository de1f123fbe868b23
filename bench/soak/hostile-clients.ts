// Clients that never read, for the hostile-client bench (bench/hostile-clients.ts) and its
// integration test: one HTTP/2 connection opening many ModelStreamInfer streams with a 1 KiB
// receive window, and WebSockets that stop reading their socket. Each keeps sending requests as
// fast as the server takes them (a write waits for the previous one to leave this process, so the
// client's own memory stays small) and records how the server ended it.

import http2 from 'node:http2';
import { pack } from 'msgpackr';
import WebSocket from 'ws';
import { serializeInferRequest } from '../model/grpc-service.js';
import { framedMessage } from '../load/grpc-frames.js';

export const STREAM_PATH = '/inference.GRPCInferenceService/ModelStreamInfer';

/** How a stalled stream or socket ended (null fields: not ended, or not by that means). */
export interface HostileEnd {
  /** gRPC: the RST_STREAM code the server sent; WebSocket: the close code. */
  readonly code: number | null;
  /** gRPC: grpc-status from trailers; WebSocket: the close reason. */
  readonly detail: string | null;
}

export interface HostileGroup {
  /** Requests written so far, over every stream or socket. */
  sent(): number;
  /** How each stream or socket ended so far (absent: still open). */
  ends(): HostileEnd[];
  /** Drops the connection(s) at once, as a client that goes away does. */
  destroy(): void;
}

/** One FP32 request of `elements` values to `model` (identity_fp32 in the bench and test). */
export function grpcRequest(model: string, elements: number, id: number): Buffer {
  return framedMessage(
    serializeInferRequest({
      model_name: model,
      id: String(id),
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, elements] }],
      raw_input_contents: [Buffer.alloc(elements * 4, 1)],
    }),
  );
}

/**
 * One HTTP/2 connection to `target` (host:port) with `streams` ModelStreamInfer calls, each sending
 * up to `perStream` requests and never reading an answer.
 */
export async function stalledGrpcStreams(
  target: string,
  streams: number,
  perStream: number,
  elements = 65_536,
  model = 'identity_fp32',
): Promise<HostileGroup> {
  const session = http2.connect(`http://${target}`, { settings: { initialWindowSize: 1024 } });
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  const message = grpcRequest(model, elements, 0);
  let sent = 0;
  const ends: HostileEnd[] = [];
  for (let s = 0; s < streams; s++) {
    const stream = session.request({
      ':method': 'POST',
      ':path': STREAM_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    stream.pause(); // never read: the 1 KiB window fills, and the server's answers wait
    let status: string | null = null;
    stream.on('trailers', (t) => (status = String(t['grpc-status'] ?? '')));
    stream.on('response', (h) => {
      if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
    });
    stream.on('error', () => undefined);
    stream.on('close', () => ends.push({ code: stream.rstCode ?? null, detail: status }));
    let n = 0;
    const next = (): void => {
      if (n >= perStream || stream.closed || stream.destroyed) return;
      n += 1;
      stream.write(message, (err) => {
        if (err) return;
        sent += 1;
        next();
      });
    };
    next();
  }
  return {
    sent: () => sent,
    ends: () => [...ends],
    destroy: () => session.destroy(),
  };
}

/**
 * `sockets` WebSockets to `url` (ws://host:port/v2/ws, msgpack), each sending up to `perSocket`
 * requests and never reading.
 */
export async function stalledWebSockets(
  url: string,
  sockets: number,
  perSocket: number,
  elements = 131_072,
  model = 'identity_fp32',
): Promise<HostileGroup> {
  const data = Buffer.alloc(elements * 4, 1);
  let sent = 0;
  const ends: HostileEnd[] = [];
  const open: WebSocket[] = [];
  for (let s = 0; s < sockets; s++) {
    const ws = new WebSocket(url);
    ws.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    // Stop reading the TCP socket: the server's answers fill its send buffer, then its queue.
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    ws.on('close', (code: number, reason: Buffer) =>
      ends.push({ code, detail: reason.toString('utf8') }),
    );
    open.push(ws);
    let n = 0;
    const next = (): void => {
      if (n >= perSocket || ws.readyState !== WebSocket.OPEN) return;
      const id = n;
      n += 1;
      const frame = pack({
        id,
        model,
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, elements], data }],
      });
      ws.send(frame, { binary: true }, (err) => {
        if (err) return;
        sent += 1;
        next();
      });
    };
    next();
  }
  return {
    sent: () => sent,
    ends: () => [...ends],
    destroy: () => {
      for (const ws of open) ws.terminate();
    },
  };
}
