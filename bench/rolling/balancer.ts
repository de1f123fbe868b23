// The load balancer in front of the replicas: HAProxy or nginx from Debian's packages, each with a
// configuration written from the settings docs/operations.md and docs/deploy-kubernetes.md
// recommend, run in the foreground as a child of this process.
//
// HAProxy checks readiness actively (every 300 ms, down after 2 failures: 0.6 s, under the
// replicas' 2 s drain delay), so a draining replica leaves the rotation before its listener
// closes. Open-source nginx has no active checks: it learns that a replica is gone when a
// connection to it is refused, and passes that request, which was never sent, to the next one.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type BalancerKind = 'haproxy' | 'nginx';

/** Why `kind` cannot run here, or false when it can. */
export function balancerMissing(kind: BalancerKind): string | false {
  const r = spawnSync(kind, ['-v'], { encoding: 'utf8' });
  return r.status === 0
    ? false
    : `${kind} is not installed (Debian's ${kind === 'nginx' ? 'nginx-light' : 'haproxy'} package; ` +
        'scripts/rolling-restart.sh and .ci/run install it)';
}

/** Test and balancer settings that must agree: the check interval times fall < drain delay. */
export const HAPROXY_CHECK_MS = 300;
export const HAPROXY_FALL = 2;
export const HAPROXY_RISE = 2;

function haproxyConfig(port: number, backends: readonly number[]): string {
  return `global
  maxconn 4096
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  # A request whose connection was refused was never sent: safe to send elsewhere, even a POST.
  retries 2
  option redispatch 1
  retry-on conn-failure
frontend infer
  bind 127.0.0.1:${port}
  default_backend infernode
backend infernode
  balance roundrobin
  # HTTP/1.1 with a Host: \`option httpchk GET <uri>\` alone sends HTTP/1.0 without one, which
  # the uWebSockets.js front end never answers (docs/http-protocol.md), so every check would fail.
  option httpchk
  http-check send meth GET uri /v2/health/ready ver HTTP/1.1 hdr Host infernode
  http-check expect status 200
  default-server inter ${HAPROXY_CHECK_MS} fall ${HAPROXY_FALL} rise ${HAPROXY_RISE}
${backends.map((p, i) => `  server r${i} 127.0.0.1:${p} check`).join('\n')}
`;
}

function nginxConfig(dir: string, port: number, backends: readonly number[]): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream infernode {
${backends.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://infernode;
      # Keep-alive to the replicas; during a drain they answer with Connection: close.
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # A refused connection (the listener closed after the drain delay), or a pooled keep-alive
      # connection the replica closed at the end of its drain just as nginx sent on it: try the
      # next replica. non_idempotent lets nginx do so for a POST already written to a connection
      # that then failed; infernode closes such a connection without reading the request, and a
      # stateless model's inference is safe to repeat (not so for sequence models' requests).
      proxy_next_upstream error timeout non_idempotent;
      proxy_connect_timeout 1s;
    }
  }
}
`;
}

export interface Balancer {
  readonly kind: BalancerKind;
  readonly port: number;
  stop(): Promise<void>;
}

/** Writes the configuration into `dir` and starts the balancer on 127.0.0.1:`port`. */
export async function startBalancer(
  kind: BalancerKind,
  dir: string,
  port: number,
  backends: readonly number[],
): Promise<Balancer> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${kind}.cfg`);
  await writeFile(
    file,
    kind === 'haproxy' ? haproxyConfig(port, backends) : nginxConfig(dir, port, backends),
  );
  const args = kind === 'haproxy' ? ['-db', '-f', file] : ['-e', 'stderr', '-c', file];
  const child: ChildProcess = spawn(kind, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const output: string[] = [];
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    kind,
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
