// The response cache in a Redis shared by replicas (`--cache-config redis,...`), through ioredis.
// A lookup is one GET of `infernode:v1:<key hash>`; the value (redis-value.ts) carries a format
// header and the key's digest, checked on read. An insert is one SET sent off the response path.
// Redis slow or down never fails a request: every command is bounded (connect and command
// timeouts, no retries, no offline queue, so a command while disconnected fails at once), a failed
// one is a miss counted by CacheFailures, and the client reconnects in the background. Redis's own
// maxmemory policy does the eviction: infernode keeps no byte budget for it.

import { readFile } from 'node:fs/promises';
import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import type { CacheKey } from './cache-key.js';
import type { CachedResponse } from './cached-response.js';
import type { CacheOp } from './cache-failures.js';
import type { RedisCacheConfig } from './redis-config.js';
import type { ResponseCache } from './response-cache.js';
import { decodeValue, encodeValue } from './redis-value.js';

/** The namespace of every key infernode writes: other users of the Redis keep theirs. */
export const KEY_PREFIX = 'infernode:v1:';

/** Reconnect delays: 50 ms, doubling, at most 2 s, so a restarted Redis is back within 2 s. */
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 2000;

export interface RedisCacheHooks {
  /** A lookup or insert failed (the request was served by the model). */
  readonly failed: (op: CacheOp, error: unknown) => void;
  /** The connection was lost or could not be made (ioredis retries on its own). */
  readonly connectionError: (error: Error) => void;
}

/** The Redis key of a cache key. */
export function redisKey(key: CacheKey): string {
  return KEY_PREFIX + key.hash;
}

export class RedisCache implements ResponseCache<CachedResponse> {
  /**
   * A cache on `config`'s Redis. The TLS files are read now, so a missing one fails the start;
   * the connection is made in the background: a Redis down at start is a run of misses.
   */
  static async create(config: RedisCacheConfig, hooks: RedisCacheHooks): Promise<RedisCache> {
    const tls = config.tls === undefined ? undefined : await tlsOptions(config);
    return new RedisCache(config, tls, hooks);
  }

  private readonly client: Redis;

  private constructor(
    private readonly config: RedisCacheConfig,
    tls: ConnectionOptions | undefined,
    private readonly hooks: RedisCacheHooks,
  ) {
    this.client = new Redis({
      host: config.host,
      port: config.port,
      db: config.db,
      ...(config.username !== undefined && { username: config.username }),
      ...(config.password !== undefined && { password: config.password }),
      ...(tls !== undefined && { tls }),
      connectTimeout: config.connectTimeoutMs,
      commandTimeout: config.commandTimeoutMs,
      // A command fails rather than waits: no queue while disconnected, no resend on reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (times) => Math.min(RECONNECT_FIRST_MS * 2 ** (times - 1), RECONNECT_MAX_MS),
      connectionName: 'infernode-response-cache',
    });
    // Without a listener ioredis prints each connection error; the server logs them instead.
    this.client.on('error', (e: Error) => this.hooks.connectionError(e));
  }

  lookup(key: CacheKey): Promise<CachedResponse | undefined> {
    return this.client.getBuffer(redisKey(key)).then(
      (bytes) => {
        if (bytes === null) return undefined;
        try {
          return decodeValue(bytes, key);
        } catch (e) {
          this.hooks.failed('lookup', e);
          return undefined;
        }
      },
      (e: unknown) => {
        this.hooks.failed('lookup', e);
        return undefined;
      },
    );
  }

  insert(key: CacheKey, value: CachedResponse): boolean {
    let bytes: Buffer;
    try {
      bytes = encodeValue(key, value);
    } catch (e) {
      this.hooks.failed('insert', e);
      return false;
    }
    const sent =
      this.config.ttlMs === undefined
        ? this.client.set(redisKey(key), bytes)
        : this.client.set(redisKey(key), bytes, 'PX', this.config.ttlMs);
    // Fire and forget: the response does not wait for Redis; a failure is only counted.
    sent.catch((e: unknown) => this.hooks.failed('insert', e));
    return true;
  }

  /** Drops the connection at once (a QUIT would wait on a Redis that may be gone). */
  close(): Promise<void> {
    this.client.disconnect(false);
    return Promise.resolve();
  }
}

async function tlsOptions(config: RedisCacheConfig): Promise<ConnectionOptions> {
  const tls = config.tls ?? {};
  const read = async (key: string, file: string | undefined): Promise<Buffer | undefined> => {
    if (file === undefined) return undefined;
    try {
      return await readFile(file);
    } catch (e) {
      throw new Error(
        `--cache-config: redis ${key}: cannot read '${file}': ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      );
    }
  };
  const [cert, key, ca] = await Promise.all([
    read('cert', tls.certFile),
    read('key', tls.keyFile),
    read('cacert', tls.caFile),
  ]);
  return {
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(ca !== undefined && { ca }),
    ...(tls.servername !== undefined && { servername: tls.servername }),
  };
}
