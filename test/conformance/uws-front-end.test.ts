// Runs the FrontEnd conformance suite against the uWebSockets.js adapter. Skipped, with the loader's
// reason, on a Node release the uWS binary does not support.

import { UWS_FIXED_TIMEOUT_MS, UwsFrontEnd } from '../../src/http/uws/uws-front-end.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { runFrontEndConformance } from './front-end.conformance.js';

const loaded = loadUws();

const CHUNKED_REFUSED =
  'the uWebSockets.js adapter refuses every chunked body with 400 (chunked-defect-cases.ts checks it)';

runFrontEndConformance({
  name: 'uWebSockets.js',
  unavailable: loaded.ok ? undefined : loaded.reason,
  create: (options) => {
    if (!loaded.ok) throw new Error(loaded.reason);
    return new UwsFrontEnd(loaded.uws, options);
  },
  // uWS's parser drops these connections itself, before any route runs, and has no hook to answer.
  parserRefusal: 'close',
  // uWS 20.30's parser closes the connection on seeing both headers, before routing and without a
  // reply; the binary has no hook to see the bytes or adopt the socket (docs/compatibility.md).
  bothFramingHeaders: 'close',
  // uWS refuses asynchronous pipelining outright ("requests can get mixed up on the same
  // connection"): a request arriving while a reply is pending closes the connection. Every reply
  // from this adapter is asynchronous. Browsers and HTTP client libraries do not pipeline.
  asyncPipelining: 'close',
  // uWS 20.30's chunked parser skips the two bytes after each chunk's data unread, skips anything
  // up to LF after a size and has no trailers: a malformed body reads as another, and what follows
  // as a next request. JavaScript never sees those bytes, so the adapter refuses chunked bodies.
  chunkedBodies: 'refused',
  // Its HTTP timeouts are built in (10 s, in 4 s timer steps) and it has no connection count.
  fixedLimits: {
    headersTimeoutMs: UWS_FIXED_TIMEOUT_MS,
    bodyTimeoutMs: UWS_FIXED_TIMEOUT_MS,
    keepAliveTimeoutMs: UWS_FIXED_TIMEOUT_MS,
    maxConnections: 0,
  },
  skip: {
    ...Object.fromEntries(
      [
        'chunked-under-limit',
        'many-tiny-chunks',
        'large-chunks-within-budget',
        'many-chunks-within-cap',
        'chunked-over-limit',
      ].map((id) => [id, CHUNKED_REFUSED]),
    ),
    'connection-cap':
      'uWebSockets.js 20.30 cannot count or refuse HTTP connections; --http-max-connections selects node:http',
    'cap-counts-held-sockets':
      'uWebSockets.js 20.30 cannot count or refuse HTTP connections; --http-max-connections selects node:http',
  },
});
