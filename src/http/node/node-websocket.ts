// The WebSocket route on the node:http server, with the `ws` package: the 'upgrade' event
// (subprotocol choice, 400/404 refusals written by hand since no ServerResponse exists for an
// upgrade), and the adapter between a `ws` socket's events and a `WebSocketPeer`.

import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  offeredProtocols,
  type WebSocketConnection,
  type WebSocketPeer,
  type WebSocketRoute,
} from '../front-end.js';
import { splitTarget } from '../http-call.js';
import { readHeaders } from './node-headers.js';

/**
 * `ws` has no 'drain' event of its own. A send's callback runs once its bytes reached the socket;
 * when that leaves less than this buffered the peer is told, the same signal uWS's drain gives.
 */
const DRAIN_BELOW_BYTES = 256 * 1024;

class NodeConnection implements WebSocketConnection {
  readonly #ws: WebSocket;
  readonly #onSent: () => void;

  constructor(ws: WebSocket, onSent: () => void) {
    this.#ws = ws;
    this.#onSent = onSent;
  }

  send(bytes: Uint8Array): boolean {
    if (this.#ws.readyState !== this.#ws.OPEN) return false;
    // ws frames the message and hands it to the socket, which keeps a reference (no copy) until
    // written; the buffers sent here are never reused by the session, so that is safe.
    this.#ws.send(bytes, { binary: true, compress: false }, this.#onSent);
    return true;
  }

  bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  close(code: number, reason: string): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.close(code, reason);
  }
}

export interface NodeWebSocketHandle {
  /** Destroys every open socket (server close: upgraded sockets are not node:http's to close). */
  terminateAll(): void;
}

export function attachNodeWebSocket(server: Server, route: WebSocketRoute): NodeWebSocketHandle {
  // The protocol chosen for each upgrade, handed from the 'upgrade' listener to handleProtocols.
  const chosen = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: route.maxMessageBytes, // over it ws closes with 1009, as uWS does
    perMessageDeflate: false,
    clientTracking: true,
    handleProtocols: (_offered, req) => {
      const protocol = chosen.get(req);
      return protocol === undefined || protocol === '' ? false : protocol;
    },
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (splitTarget(req.url ?? '/').path !== route.path) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    const choice = route.selectProtocol(offeredProtocols(req.headers['sec-websocket-protocol']));
    if ('refused' in choice) {
      refuse(socket, 400, choice.refused);
      return;
    }
    chosen.set(req, choice.protocol);
    wss.handleUpgrade(req, socket, head, (ws) => {
      let peer: WebSocketPeer | undefined;
      const onSent = (): void => {
        if (ws.bufferedAmount < DRAIN_BELOW_BYTES) peer?.drain();
      };
      peer = route.open(new NodeConnection(ws, onSent), choice.protocol, readHeaders(req));
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        // With the default binaryType a message is one Buffer (fragments already joined), freshly
        // allocated per socket read: the peer may keep views of it.
        peer?.message(
          new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          isBinary,
          false,
        );
      });
      // A protocol error (e.g. a frame over maxPayload) closes the socket; 'close' follows.
      ws.on('error', () => undefined);
      ws.once('close', () => {
        const p = peer;
        peer = undefined;
        p?.closed();
      });
    });
  });

  return {
    terminateAll: () => {
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

/** Answers an upgrade request with a plain HTTP error and closes the socket. */
function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
