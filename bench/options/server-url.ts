// -u: perf_analyzer takes `host:port` (no scheme); `http://host:port` is accepted too.

import { UsageError } from './usage-error.js';

export function parseServerUrl(url: string): { host: string; port: number } {
  const m = /^(?:http:\/\/)?(\[[^\]]+\]|[^:/[\]]+)(?::(\d{1,5}))?\/?$/.exec(url);
  const port = Number(m?.[2] ?? 8000);
  if (m === null || port < 1 || port > 65535) {
    throw new UsageError(`-u: expected host:port (e.g. localhost:8000), got "${url}"`);
  }
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}
