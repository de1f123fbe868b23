// The WebSocket flags: whether /v2/ws is served on the HTTP port, and what one socket may hold.

import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const WEBSOCKET_FLAGS = {
  'allow-websocket': {
    kind: 'bool',
    help: 'Serve the streaming WebSocket protocol at /v2/ws on the HTTP port (true)',
  },
  'ws-max-frame-size': {
    kind: 'uint',
    help: 'Largest WebSocket frame in bytes; a larger one closes the socket: 1009 on the node front end, uWS drops the connection (clients see 1006) (67108864)',
  },
  'ws-max-inflight': {
    kind: 'uint',
    help: 'Requests one WebSocket may have in flight; more get an error frame (1024)',
  },
  'ws-max-queued-bytes': {
    kind: 'uint',
    help: 'Unread response bytes per WebSocket before it is closed with 1008 (67108864)',
  },
} as const satisfies FlagTable;

type WebSocketOptions = Pick<
  ServerOptions,
  'allowWebsocket' | 'wsMaxFrameSize' | 'wsMaxInflight' | 'wsMaxQueuedBytes'
>;

export function webSocketOptions(read: FlagReader<keyof typeof WEBSOCKET_FLAGS>): WebSocketOptions {
  return {
    allowWebsocket: read.bool('allow-websocket', DEFAULT_OPTIONS.allowWebsocket),
    // uWS takes the frame cap as a 32-bit length.
    wsMaxFrameSize: read.positive('ws-max-frame-size', DEFAULT_OPTIONS.wsMaxFrameSize, 0xffffffff),
    wsMaxInflight: read.positive('ws-max-inflight', DEFAULT_OPTIONS.wsMaxInflight),
    wsMaxQueuedBytes: read.positive('ws-max-queued-bytes', DEFAULT_OPTIONS.wsMaxQueuedBytes),
  };
}
