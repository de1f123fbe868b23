// A node:http request's headers in the form every adapter hands on (lower-case names, repeats
// joined with ", "), for plain requests and WebSocket upgrades alike.

import type { IncomingMessage } from 'node:http';

export function readHeaders(req: IncomingMessage): Map<string, string> {
  const headers = new Map<string, string>();
  // headersDistinct keeps every value of a repeated header; joined with ", " exactly as the uWS
  // adapter does, so the two adapters present the same map.
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values !== undefined) headers.set(name, values.join(', '));
  }
  return headers;
}
