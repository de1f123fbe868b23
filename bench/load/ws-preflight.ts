// One request before any WebSocket load: the server must answer the exact frame the generator
// will send (id patched) with the model's outputs. Uses the `ws` library, independent of the
// generator's own framing, so a framing bug there cannot pass its own check.

import WebSocket from 'ws';
import { msgpackClientCodec } from 'infernode/tooling';
import { UsageError } from '../options/usage-error.js';
import type { WsRequestPayload } from './ws-request.js';

export async function wsPreflight(
  url: string,
  subprotocol: string,
  request: WsRequestPayload,
  expectedOutputs: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const frame = Buffer.from(request.bytes);
  frame.writeUInt32BE(1, request.idOffset);
  const socket = new WebSocket(url, [subprotocol], { perMessageDeflate: false });
  try {
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new UsageError(`preflight ${url}: no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.once('open', () => socket.send(frame, { binary: true }));
      socket.once('message', (data: Buffer) => {
        clearTimeout(timer);
        resolve(data);
      });
      socket.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        reject(
          new UsageError(
            `preflight ${url}: expected a WebSocket upgrade, got HTTP ${res.statusCode ?? '?'}`,
          ),
        );
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(new UsageError(`preflight ${url}: ${e.message}`));
      });
    });
    const decoded = msgpackClientCodec.decodeReply(new Uint8Array(reply));
    if ('error' in decoded) {
      throw new UsageError(
        `preflight ${url}: expected outputs, got ${decoded.error.code}: ${decoded.error.message}`,
      );
    }
    if (decoded.id !== 1)
      throw new UsageError(`preflight ${url}: expected id 1 echoed, got ${String(decoded.id)}`);
    if (!('result' in decoded))
      throw new UsageError(`preflight ${url}: expected outputs, got a ${decoded.repository.type}`);
    const outputs = decoded.result.outputs.map((o) => o.name);
    const missing = expectedOutputs.filter((name) => !outputs.includes(name));
    if (missing.length > 0) {
      throw new UsageError(
        `preflight ${url}: expected outputs ${expectedOutputs.join(', ')}, got ${outputs.join(', ') || 'none'}`,
      );
    }
  } finally {
    // Aborting a socket still connecting emits 'error'; it is already accounted for above.
    socket.on('error', () => undefined);
    socket.terminate();
  }
}
