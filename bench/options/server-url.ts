// -u: perf_analyzer takes `host:port` (no scheme); `http://host:port` is accepted too. Without a
// port, Triton's: 8000 for HTTP, 8001 for gRPC.

import { UsageError } from './usage-error.js';

export function parseServerUrl(url: string, defaultPort = 8000): { host: string; port: number } {
  const m = /^(?:http:\/\/)?(\[[^\]]+\]|[^:/[\]]+)(?::(\d{1,5}))?\/?$/.exec(url);
  const port = Number(m?.[2] ?? defaultPort);
  if (m === null || port < 1 || port > 65535) {
    throw new UsageError(`-u: expected host:port (e.g. localhost:${defaultPort}), got "${url}"`);
  }
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}
