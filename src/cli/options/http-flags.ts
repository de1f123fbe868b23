// The HTTP flags: the listener (address, port, front end, threads), its limits on requests and
// connections, and the APIs that need a header.

import type { FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS } from './options-type.js';

export const HTTP_FLAGS = {
  'http-address': { kind: 'string', help: 'Address HTTP and WebSocket listen on (0.0.0.0)' },
  'http-port': { kind: 'port', help: 'HTTP and WebSocket port (8000)' },
  'http-max-input-size': {
    kind: 'uint',
    help: 'Largest request body in bytes, after decompression (67108864)',
  },
  'http-header-timeout-secs': {
    kind: 'uint',
    help: 'Seconds a client may take to send a request head; then the connection closes (10)',
  },
  'http-body-timeout-secs': {
    kind: 'uint',
    help: 'Longest silence in seconds while a request body arrives; then the connection closes (10)',
  },
  'http-idle-timeout-secs': {
    kind: 'uint',
    help: 'Seconds a keep-alive connection may wait for its next request (10)',
  },
  'http-max-connections': {
    kind: 'uint',
    help: 'Open HTTP connections at most, WebSockets included; more are closed at once (0: no cap)',
  },
  'http-front-end': { kind: 'string', help: 'auto | uws | node: which HTTP server to use (auto)' },
  'http-thread-count': {
    kind: 'uint',
    help:
      'Threads serving HTTP and WebSocket on the HTTP port, main included ' +
      `(half the cores, 1 to 8: ${DEFAULT_OPTIONS.httpThreadCount} here)`,
  },
  'reuse-http-port': {
    kind: 'bool',
    help: 'Listen on the HTTP port with SO_REUSEPORT so several processes can share it (false)',
  },
  'http-restricted-api': {
    kind: 'string',
    repeat: true,
    help: '<category>[,<category>...]:<header>=<value>: those HTTP/WebSocket APIs need the header',
  },
} as const satisfies FlagTable;
