// The WebSocket step function: a handful of `ws` sockets speaking infernode's msgpack protocol,
// the streams spread over them round-robin. Each step is one request frame with the sequence
// fields as first-class frame fields and the chunk as a binary `audio` tensor; answers are matched
// by id reading only the frame's first keys (bench/load/ws-request.ts).

import WebSocket from 'ws';
import { msgpackClientCodec, tensorFromBytes, MSGPACK_PROTOCOL } from 'infernode/tooling';
import { readReply } from '../load/ws-request.js';
import type { StepFunction } from './stream-pacer.js';

interface Pending {
  resolve(): void;
  reject(e: Error): void;
}

export interface WsSteps {
  readonly step: StepFunction;
  close(): void;
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [MSGPACK_PROTOCOL], { perMessageDeflate: false });
    ws.binaryType = 'nodebuffer';
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

export async function wsSteps(
  host: string,
  port: number,
  model: string,
  connections: number,
): Promise<WsSteps> {
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => open(`ws://${host}:${port}/v2/ws`)),
  );
  const pending = new Map<number, Pending>();
  let nextId = 1;
  for (const ws of sockets) {
    ws.on('message', (data: Buffer) => {
      const reply = readReply(data);
      if (reply.id === undefined) return;
      const p = pending.get(reply.id);
      if (p === undefined) return;
      pending.delete(reply.id);
      if (reply.error === null) p.resolve();
      else p.reject(new Error(reply.error));
    });
    ws.on('close', () => {
      for (const p of pending.values()) p.reject(new Error('the WebSocket closed'));
      pending.clear();
    });
  }
  const step: StepFunction = (stream, s) =>
    new Promise<void>((resolve, reject) => {
      const id = nextId;
      // Ids stay below 2^32: ws-request's fast path reads uint32 ids.
      nextId = nextId === 0xffffffff ? 1 : nextId + 1;
      pending.set(id, { resolve, reject });
      const frame = msgpackClientCodec.encodeRequest(
        id,
        model,
        [tensorFromBytes('audio', 'FP32', [1, s.chunk.length / 4], s.chunk)],
        { sequenceId: s.sequenceId, sequenceStart: s.start, sequenceEnd: s.end },
      );
      (sockets[stream % sockets.length] as WebSocket).send(frame);
    });
  return {
    step,
    close: () => {
      for (const ws of sockets) ws.close();
    },
  };
}
