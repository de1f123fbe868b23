// The HTTP flags: the listener (address, port, front end, threads), its limits on requests and
// connections, and the APIs that need a header.

import { parseApiRestrictions } from '../../http/restricted-apis.js';
import { parseFrontEndChoice } from '../../http/select-front-end.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

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

type HttpOptions = Pick<
  ServerOptions,
  | 'httpAddress'
  | 'httpPort'
  | 'httpMaxInputSize'
  | 'httpHeaderTimeoutSecs'
  | 'httpBodyTimeoutSecs'
  | 'httpIdleTimeoutSecs'
  | 'httpMaxConnections'
  | 'httpFrontEnd'
  | 'httpThreadCount'
  | 'reuseHttpPort'
  | 'httpRestrictedApis'
>;

export function httpOptions(read: FlagReader<keyof typeof HTTP_FLAGS>): HttpOptions {
  return {
    httpAddress: read.last('http-address') ?? DEFAULT_OPTIONS.httpAddress,
    httpPort: read.uint('http-port', DEFAULT_OPTIONS.httpPort, 65535),
    httpMaxInputSize: read.aboveZero('http-max-input-size', DEFAULT_OPTIONS.httpMaxInputSize),
    httpHeaderTimeoutSecs: read.positive(
      'http-header-timeout-secs',
      DEFAULT_OPTIONS.httpHeaderTimeoutSecs,
      3600,
    ),
    httpBodyTimeoutSecs: read.positive(
      'http-body-timeout-secs',
      DEFAULT_OPTIONS.httpBodyTimeoutSecs,
      3600,
    ),
    httpIdleTimeoutSecs: read.positive(
      'http-idle-timeout-secs',
      DEFAULT_OPTIONS.httpIdleTimeoutSecs,
      3600,
    ),
    httpMaxConnections: read.uint('http-max-connections', DEFAULT_OPTIONS.httpMaxConnections),
    httpFrontEnd: parseFrontEndChoice(read.last('http-front-end') ?? DEFAULT_OPTIONS.httpFrontEnd),
    httpThreadCount: read.positive('http-thread-count', DEFAULT_OPTIONS.httpThreadCount, 256),
    reuseHttpPort: read.bool('reuse-http-port', DEFAULT_OPTIONS.reuseHttpPort),
    httpRestrictedApis: parseApiRestrictions(read.all('http-restricted-api')),
  };
}
