// The Redis cache's settings from `--cache-config redis,<key>=<value>`, under the keys Triton's
// Redis cache reads (host, port, user, password, db, connect_timeout, socket_timeout, pool_size,
// wait_timeout, tls_enabled, cert, key, cacert, cacert_dir, sni) plus infernode's `ttl_ms`. What
// ioredis can honour is taken; the rest is refused at start, naming the key. Checked once, frozen.

import { fail } from '../errors.js';

export interface RedisTlsConfig {
  /** Files read once when the cache is created: the client certificate, its key, the CA bundle. */
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly caFile?: string;
  /** The server name sent in the TLS handshake (and checked against the certificate). */
  readonly servername?: string;
}

export interface RedisCacheConfig {
  readonly kind: 'redis';
  readonly host: string;
  readonly port: number;
  /** ACL user (Triton's `user`; `username` is accepted too). Absent: Redis's `default` user. */
  readonly username?: string;
  readonly password?: string;
  readonly db: number;
  /** Bound on establishing the connection (Triton's `connect_timeout`, ms). */
  readonly connectTimeoutMs: number;
  /** Bound on one command's reply (Triton's `socket_timeout`, ms): a slower Redis is a miss. */
  readonly commandTimeoutMs: number;
  /** Entry time to live (ms); absent: entries live until Redis's maxmemory policy evicts them. */
  readonly ttlMs?: number;
  /** Present when `tls_enabled=true`. */
  readonly tls?: RedisTlsConfig;
}

/** The default bounds: Triton waits forever (0); infernode never lets the cache hold a request. */
export const REDIS_CONNECT_TIMEOUT_MS = 1000;
export const REDIS_COMMAND_TIMEOUT_MS = 250;

const SUPPORTED = [
  'host',
  'port',
  'user',
  'username',
  'password',
  'db',
  'connect_timeout',
  'socket_timeout',
  'pool_size',
  'tls_enabled',
  'cert',
  'key',
  'cacert',
  'sni',
  'ttl_ms',
];

/** Keys Triton's Redis cache reads that ioredis cannot honour, with why. */
const REFUSED: Record<string, string> = {
  wait_timeout:
    'ioredis has no connection pool to wait on (one pipelined connection); bound a command with socket_timeout',
  cacert_dir:
    "Node's TLS takes CA certificates, not a directory; give the bundle file as cacert=<file>",
};

function refuse(message: string): never {
  throw fail('BAD_REQUEST', `--cache-config: redis ${message}`);
}

function integer(
  keys: ReadonlyMap<string, string>,
  key: string,
  min: number,
  max: number,
): number | undefined {
  const value = keys.get(key);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]{1,16}$/.test(value) || n < min || n > max) {
    refuse(`${key}: expected an integer from ${min} to ${max}, got '${value.slice(0, 100)}'`);
  }
  return n;
}

function timeout(keys: ReadonlyMap<string, string>, key: string, fallback: number): number {
  const value = keys.get(key);
  if (value === '0') {
    refuse(
      `${key}=0 (wait forever) is not supported: a slow or absent Redis must never hold a request; give milliseconds > 0`,
    );
  }
  return integer(keys, key, 1, 3_600_000) ?? fallback;
}

function file(keys: ReadonlyMap<string, string>, key: string): string | undefined {
  const value = keys.get(key);
  if (value === '') refuse(`${key}: expected a file path, got ''`);
  return value;
}

/** The Redis cache's settings from its `--cache-config` keys (later values already won). */
export function parseRedisConfig(keys: ReadonlyMap<string, string>): RedisCacheConfig {
  for (const key of keys.keys()) {
    const why = REFUSED[key];
    if (why !== undefined) refuse(`${key} is not supported: ${why}`);
    if (!SUPPORTED.includes(key)) {
      refuse(`cache has no setting '${key.slice(0, 100)}' (${SUPPORTED.join(', ')})`);
    }
  }
  const host = keys.get('host');
  const port = integer(keys, 'port', 1, 65535);
  if (host === undefined || host === '' || port === undefined) {
    refuse(
      "cache needs host and port (Triton's minimum), e.g. --cache-config redis,host=localhost --cache-config redis,port=6379",
    );
  }
  const poolSize = integer(keys, 'pool_size', 0, 1_000_000);
  if (poolSize !== undefined && poolSize !== 1) {
    refuse(
      `pool_size=${poolSize} is not supported: ioredis pipelines every command on one connection (pool_size=1)`,
    );
  }
  const user = keys.get('user');
  const username = keys.get('username');
  if (user !== undefined && username !== undefined && user !== username) {
    refuse('user and username are the same setting and were given different values');
  }
  const tlsFlag = keys.get('tls_enabled');
  if (tlsFlag !== undefined && tlsFlag !== 'true' && tlsFlag !== 'false') {
    refuse(`tls_enabled: expected true or false, got '${tlsFlag.slice(0, 100)}'`);
  }
  const tlsKeys = ['cert', 'key', 'cacert', 'sni'].filter((k) => keys.has(k));
  if (tlsFlag !== 'true' && tlsKeys.length > 0) {
    refuse(`${tlsKeys.join(', ')} ${tlsKeys.length === 1 ? 'needs' : 'need'} tls_enabled=true`);
  }
  if (keys.has('cert') !== keys.has('key'))
    refuse('cert and key go together (a client certificate and its key)');
  const certFile = file(keys, 'cert');
  const keyFile = file(keys, 'key');
  const caFile = file(keys, 'cacert');
  const servername = keys.get('sni');
  const ttlMs = integer(keys, 'ttl_ms', 1, Number.MAX_SAFE_INTEGER);
  const password = keys.get('password');
  const name = username ?? user;
  return Object.freeze({
    kind: 'redis' as const,
    host,
    port,
    ...(name !== undefined && name !== '' && { username: name }),
    ...(password !== undefined && password !== '' && { password }),
    db: integer(keys, 'db', 0, 1_000_000) ?? 0,
    connectTimeoutMs: timeout(keys, 'connect_timeout', REDIS_CONNECT_TIMEOUT_MS),
    commandTimeoutMs: timeout(keys, 'socket_timeout', REDIS_COMMAND_TIMEOUT_MS),
    ...(ttlMs !== undefined && { ttlMs }),
    ...(tlsFlag === 'true' && {
      tls: Object.freeze({
        ...(certFile !== undefined && { certFile }),
        ...(keyFile !== undefined && { keyFile }),
        ...(caFile !== undefined && { caFile }),
        ...(servername !== undefined && servername !== '' && { servername }),
      }),
    }),
  });
}
