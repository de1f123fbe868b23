// The Host header rule both front ends enforce on every request (RFC 9112 §3.2): a request with
// more than one Host field is answered 400, and the exchange closes the connection after it, as
// for conflicting framing headers. Neither uWS nor node:http refuses it; a proxy that routes on
// the first Host while the server reads another is how such a request is used against servers.

import { fail } from '../errors.js';

/**
 * Throws BAD_REQUEST when the head carried Host more than once. Adapters join repeated fields with
 * ", ", and a single Host value (uri-host [":" port]) never holds a comma, so a comma means a repeat.
 */
export function refuseRepeatedHost(header: (name: string) => string | undefined): void {
  const host = header('host');
  if (host !== undefined && host.includes(',')) {
    throw fail('BAD_REQUEST', `expected one Host header, got ${host.split(',').length}`);
  }
}
