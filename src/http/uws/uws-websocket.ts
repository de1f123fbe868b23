// The WebSocket route on the uWebSockets.js app: the upgrade (subprotocol choice, refusal with
// 400), and the adapter between uWS's per-socket callbacks and a `WebSocketPeer`.
//
// uWS rules this file exists to honour: a `WebSocket` object must not be touched after its close
// callback (it throws "Invalid access of closed uWS.WebSocket"), and a message's ArrayBuffer is
// neutered when the message callback returns, so the peer is told the bytes are volatile.

import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import {
  offeredProtocols,
  type WebSocketConnection,
  type WebSocketPeer,
  type WebSocketRoute,
} from '../front-end.js';
import { readHeaders } from './uws-headers.js';
import type { UwsApp } from './uws-loader.js';

interface SocketData {
  readonly protocol: string;
  readonly headers: ReadonlyMap<string, string>;
  peer?: WebSocketPeer;
  connection?: UwsConnection;
}

/**
 * uWS drops a send (returns 2) once this much is buffered for a socket. The session keeps its own
 * bounded queue and only sends while the buffer is below its high-water mark, so this is a safety
 * net set well above anything the session lets build up, never the flow control itself.
 */
const UWS_MAX_BACKPRESSURE = 1024 * 1024 * 1024;

class UwsConnection implements WebSocketConnection {
  readonly #ws: WebSocket<SocketData>;
  #open = true;

  constructor(ws: WebSocket<SocketData>) {
    this.#ws = ws;
  }

  send(bytes: Uint8Array): boolean {
    if (!this.#open) return false;
    // uWS copies into its socket buffer (or writes straight to the kernel) before returning.
    return this.#ws.send(bytes, true, false) !== 2;
  }

  bufferedAmount(): number {
    return this.#open ? this.#ws.getBufferedAmount() : 0;
  }

  close(code: number, reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    this.#ws.end(code, reason);
  }

  /** Forceful close (server shutdown on builds without app.close()). */
  terminate(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#ws.close();
  }

  markClosed(): void {
    this.#open = false;
  }
}

/** Sockets open on this route, for close() on uWS builds without app.close(). */
export interface UwsWebSocketHandle {
  terminateAll(): void;
}

export function attachUwsWebSocket(app: UwsApp, route: WebSocketRoute): UwsWebSocketHandle {
  const open = new Set<UwsConnection>();
  app.ws<SocketData>(route.path, {
    maxPayloadLength: route.maxMessageBytes,
    maxBackpressure: UWS_MAX_BACKPRESSURE,
    // Tensors are incompressible in practice, and deflate would cost a copy each way.
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      // Everything is read synchronously: `req` is only valid inside this callback.
      const key = req.getHeader('sec-websocket-key');
      const extensions = req.getHeader('sec-websocket-extensions');
      const choice = route.selectProtocol(
        offeredProtocols(req.getHeader('sec-websocket-protocol')),
      );
      if ('refused' in choice) {
        res
          .writeStatus('400 Bad Request')
          .writeHeader('content-type', 'application/json')
          .end(JSON.stringify({ error: choice.refused }), true);
        return;
      }
      res.upgrade<SocketData>(
        { protocol: choice.protocol, headers: readHeaders(req) },
        key,
        choice.protocol,
        extensions,
        context,
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      const connection = new UwsConnection(ws);
      open.add(connection);
      data.connection = connection;
      data.peer = route.open(connection, data.protocol, data.headers);
    },
    message: (ws, message, isBinary) => {
      ws.getUserData().peer?.message(new Uint8Array(message), isBinary, true);
    },
    drain: (ws) => {
      ws.getUserData().peer?.drain();
    },
    close: (ws) => {
      const data = ws.getUserData();
      if (data.connection !== undefined) {
        data.connection.markClosed();
        open.delete(data.connection);
      }
      data.peer?.closed();
    },
  });
  return {
    terminateAll: () => {
      for (const connection of [...open]) connection.terminate();
    },
  };
}
