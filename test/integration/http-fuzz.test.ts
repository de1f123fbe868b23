// A raw-socket request fuzz against the real server on both HTTP front ends (Triton's L0_http_fuzz
// idea): methods × endpoints × mutations of the request line and head, a seeded sample of them sent
// each on its own connection. Every request must get a response or a close within a second, none a
// 5xx, and the server must stay live. The one exception is written down: uWS 20.30's parser holds a
// request it cannot parse (bad version, missing Host, bare LF, a malformed header line, a method
// with a space, an absolute-form target) without a word until its fixed 10 s timeout, and offers
// JavaScript no hook to answer it; those mutations are allowed silence on uWS only, counted, and
// everything else is held to the rule there too. docs/http-protocol.md says how to avoid them.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { mulberry32 } from '../../scripts/onnx/seeded-random.js';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

const METHODS = [
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'TRACE',
  'GE T',
  'get',
];
const ENDPOINTS = [
  '/',
  '/v2',
  '/v2/health/live',
  '/v2/health/ready',
  '/v2/models/simple',
  '/v2/models/simple/ready',
  '/v2/models/simple/config',
  '/v2/models/simple/stats',
  '/v2/models/simple/infer',
  '/v2/models/simple/versions/1/infer',
  '/v2/repository/index',
  '/v2/models/nope/infer',
  '/v2/ws',
];

interface Mutation {
  readonly name: string;
  /** uWS's parser swallows it silently (see the header comment). */
  readonly uwsSilent?: true;
  build(method: string, target: string): string;
}

const BODY = '{"inputs":[]}';
const line = (m: string, t: string, v = 'HTTP/1.1'): string => `${m} ${t} ${v}`;
const MUTATIONS: readonly Mutation[] = [
  { name: 'plain', build: (m, t) => `${line(m, t)}\r\nHost: x\r\n\r\n` },
  {
    name: 'with body',
    build: (m, t) => `${line(m, t)}\r\nHost: x\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
  },
  {
    name: 'bad version',
    uwsSilent: true,
    build: (m, t) => `${line(m, t, 'HTTP/9.9')}\r\nHost: x\r\n\r\n`,
  },
  { name: 'no version', uwsSilent: true, build: (m, t) => `${m} ${t}\r\nHost: x\r\n\r\n` },
  {
    name: 'lower-case version',
    uwsSilent: true,
    build: (m, t) => `${line(m, t, 'http/1.1')}\r\nHost: x\r\n\r\n`,
  },
  { name: 'HTTP/1.0', uwsSilent: true, build: (m, t) => `${line(m, t, 'HTTP/1.0')}\r\n\r\n` },
  { name: 'missing Host', uwsSilent: true, build: (m, t) => `${line(m, t)}\r\n\r\n` },
  { name: 'bare LF', uwsSilent: true, build: (m, t) => `${line(m, t)}\nHost: x\n\n` },
  {
    name: 'double space',
    uwsSilent: true,
    build: (m, t) => `${m}  ${t} HTTP/1.1\r\nHost: x\r\n\r\n`,
  },
  {
    name: 'tab separator',
    uwsSilent: true,
    build: (m, t) => `${m}\t${t}\tHTTP/1.1\r\nHost: x\r\n\r\n`,
  },
  {
    name: 'header without colon',
    uwsSilent: true,
    build: (m, t) => `${line(m, t)}\r\nHost: x\r\nNoColon\r\n\r\n`,
  },
  {
    name: 'space before colon',
    uwsSilent: true,
    build: (m, t) => `${line(m, t)}\r\nHost : x\r\n\r\n`,
  },
  {
    name: 'NUL in target',
    uwsSilent: true,
    build: (m, t) => `${line(m, `${t}\u0000x`)}\r\nHost: x\r\n\r\n`,
  },
  { name: 'query garbage', build: (m, t) => `${line(m, `${t}?%zz&&=;%00`)}\r\nHost: x\r\n\r\n` },
  { name: 'percent garbage', build: (m, t) => `${line(m, `${t}/%E0%A4%A`)}\r\nHost: x\r\n\r\n` },
  { name: 'dot segments', build: (m, t) => `${line(m, `/v2/../..${t}`)}\r\nHost: x\r\n\r\n` },
  {
    name: 'long target',
    build: (m, t) => `${line(m, `${t}${'/a'.repeat(2000)}`)}\r\nHost: x\r\n\r\n`,
  },
  {
    name: 'absolute form',
    uwsSilent: true,
    build: (m, t) => `${line(m, `http://x${t}`)}\r\nHost: x\r\n\r\n`,
  },
  {
    name: 'Content-Length -1',
    uwsSilent: true,
    build: (m, t) => `${line(m, t)}\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
  },
  {
    name: 'Content-Length 2^64',
    uwsSilent: true,
    build: (m, t) => `${line(m, t)}\r\nHost: x\r\nContent-Length: 18446744073709551616\r\n\r\n`,
  },
  {
    name: 'two Content-Lengths',
    build: (m, t) =>
      `${line(m, t)}\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\n{}{}`,
  },
  {
    name: 'Transfer-Encoding gzip',
    build: (m, t) => `${line(m, t)}\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n`,
  },
  {
    name: 'bad chunk size',
    build: (m, t) =>
      `${line(m, t)}\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
  },
  {
    name: 'Content-Type garbage',
    build: (m, t) =>
      `${line(m, t)}\r\nHost: x\r\nContent-Type: ;;;\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
  },
  {
    name: 'Inference-Header-Content-Length garbage',
    build: (m, t) =>
      `${line(m, t)}\r\nHost: x\r\nInference-Header-Content-Length: -5\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`,
  },
  {
    name: 'Upgrade without key',
    build: (m, t) =>
      `${line(m, t)}\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
  },
];

type Outcome = { status: number } | 'closed' | 'silent';

/** Sends `request` on a new connection: the first status line, a close, or silence for `ms`. */
function probe(port: number, request: string, ms: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let settled = false;
    const done = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('silent'), ms);
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (match !== null) done({ status: Number(match[1]) });
      else if (received.length > 12) done({ status: -1 }); // not HTTP: recorded as a failure
    });
    socket.on('close', () => done('closed'));
    socket.on('error', () => done('closed'));
    socket.write(request, 'latin1');
  });
}

interface Trial {
  readonly method: string;
  readonly endpoint: string;
  readonly mutation: Mutation;
}

/** A seeded sample of the product, every mutation included at least `perMutation` times. */
function sample(seed: number, perMutation: number): Trial[] {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const trials: Trial[] = [];
  for (const mutation of MUTATIONS) {
    for (let i = 0; i < perMutation; i += 1) {
      trials.push({ method: pick(METHODS), endpoint: pick(ENDPOINTS), mutation });
    }
  }
  return trials;
}

async function isLive(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}/v2/health/live`);
  return response.status === 200;
}

const uws = loadUws();
const FRONT_ENDS: readonly { name: string; flag: string; skip?: string }[] = [
  { name: 'uws', flag: '--http-front-end=uws', ...(uws.ok ? {} : { skip: uws.reason }) },
  { name: 'node', flag: '--http-front-end=node' },
];

void describe('HTTP request fuzz', () => {
  let repo: string;
  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
  });

  for (const fe of FRONT_ENDS) {
    void describe(`on the ${fe.name} front end`, { skip: fe.skip }, () => {
      let server: SpawnedServer | undefined;
      after(() => {
        server?.child.kill('SIGKILL');
      });

      void it('answers or closes every request within a second, never with a 5xx, and stays live', async () => {
        server = await spawnServer([`--model-repository=${repo}`, fe.flag]);
        const port = Number(new URL(server.base).port);
        const trials = sample(20261124, 8);
        const failures: string[] = [];
        const silentOnUws = new Map<string, number>();
        // In groups, so silent connections cost one second per group, not one each.
        for (let at = 0; at < trials.length; at += 60) {
          const group = trials.slice(at, at + 60);
          const outcomes = await Promise.all(
            group.map((t) => probe(port, t.mutation.build(t.method, t.endpoint), 1000)),
          );
          for (const [i, outcome] of outcomes.entries()) {
            const t = group[i] as Trial;
            const label = `${t.mutation.name}: ${JSON.stringify(t.mutation.build(t.method, t.endpoint).slice(0, 80))}`;
            if (outcome === 'silent') {
              if (fe.name === 'uws' && (t.mutation.uwsSilent === true || t.method.includes(' '))) {
                silentOnUws.set(t.mutation.name, (silentOnUws.get(t.mutation.name) ?? 0) + 1);
                continue;
              }
              // Sixty connections at once on a loaded 2-core machine (CI beside other jobs) can
              // take a group past 1 s; the same request sent alone must still be answered or
              // closed, so a request the server leaves hanging fails either way.
              const alone = await probe(port, t.mutation.build(t.method, t.endpoint), 5000);
              if (alone === 'silent') {
                failures.push(`no reply or close within 1 s, nor within 5 s alone: ${label}`);
              } else if (alone !== 'closed' && (alone.status >= 500 || alone.status < 100)) {
                failures.push(`status ${alone.status} (sent alone after 1 s of silence): ${label}`);
              }
            } else if (outcome !== 'closed' && (outcome.status >= 500 || outcome.status < 100)) {
              failures.push(`status ${outcome.status}: ${label}`);
            }
          }
          assert.ok(
            await isLive(port),
            `the server stopped answering after trial ${at + group.length}`,
          );
        }
        assert.deepEqual(failures, []);
        if (fe.name === 'node') assert.equal(silentOnUws.size, 0);
        assert.equal(server.child.exitCode, null, 'the server exited');
      });
    });
  }
});
