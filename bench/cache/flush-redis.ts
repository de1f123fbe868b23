// Empties the Redis a `--cache-config redis,...` row uses before that row runs, so every row of the
// table starts from an empty cache, as a local row does with its fresh server. Without it, a Redis
// row would find the previous rows' entries (the load generator's fresh inputs are the same
// sequence in every row) and report hits for inputs the row never sent before. Speaks RESP over
// node:net (AUTH, SELECT, FLUSHDB) so the bench needs no Redis client of its own.

import { connect } from 'node:net';

/** `host`, `port`, `user`/`username`, `password`, `db` of a `redis,<key>=<value>,...` value. */
function redisSettings(config: string): Map<string, string> | undefined {
  const [kind, ...pairs] = config.split(',');
  if (kind !== 'redis') return undefined;
  const keys = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq > 0) keys.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return keys;
}

function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** FLUSHDB on the Redis a cache config names; nothing for any other cache. */
export async function flushRedisCache(config: string): Promise<void> {
  const keys = redisSettings(config);
  if (keys === undefined) return;
  const host = keys.get('host') ?? '127.0.0.1';
  const port = Number(keys.get('port') ?? '6379');
  const user = keys.get('user') ?? keys.get('username');
  const password = keys.get('password');
  const commands: string[] = [];
  if (password !== undefined) {
    commands.push(user === undefined ? command('AUTH', password) : command('AUTH', user, password));
  }
  if (keys.has('db')) commands.push(command('SELECT', keys.get('db') as string));
  commands.push(command('FLUSHDB'));
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port });
    let replies = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`FLUSHDB on Redis at ${host}:${port}: no answer in 5 s`));
    }, 5000);
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write(commands.join('')));
    socket.on('data', (chunk: string) => {
      replies += chunk;
      const lines = replies.split('\r\n').filter((l) => l !== '');
      const error = lines.find((l) => l.startsWith('-'));
      if (error !== undefined || lines.length >= commands.length) {
        clearTimeout(timer);
        socket.end();
        if (error === undefined) resolve();
        else reject(new Error(`Redis at ${host}:${port} refused: ${error.slice(1)}`));
      }
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`FLUSHDB on Redis at ${host}:${port}: ${e.message}`));
    });
  });
}
