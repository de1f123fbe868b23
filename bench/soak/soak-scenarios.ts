// The soak's request mix: good requests (HTTP JSON, HTTP binary, WebSocket msgpack over three
// models), bad ones (malformed JSON, wrong shapes and datatypes, unknown models, an oversize body,
// garbage WebSocket frames) and cancelled ones (HTTP clients that abort mid-body or mid-inference,
// WebSocket cancel frames, sockets closed with requests in flight). Each scenario knows what a
// healthy server answers, so every run ends in one outcome: anything else (a 5xx, a 200 for a bad
// request, a dropped connection for a good one) is an error.

import { pack } from 'msgpackr';
import { binaryRequestBody, jsonRequestBody } from '../model/request-body.js';
import type { InputSet } from '../model/input-data.js';
import { abortedHttpRequest, httpRequest, type HttpCall, type HttpTarget } from './soak-http.js';
import { SoakSocket, type WsEnd } from './soak-socket.js';

export type Kind = 'good' | 'bad' | 'cancelled';
export type Outcome = 'ok' | 'rejected' | 'cancelled' | 'error';
export const OUTCOMES: readonly Outcome[] = ['ok', 'rejected', 'cancelled', 'error'];

export interface Lane {
  readonly http: HttpTarget;
  readonly wsUrl: string;
  /** The lane's long-lived socket (reopened by the lane when the server closed it). */
  socket(): Promise<SoakSocket>;
}

export interface Verdict {
  readonly outcome: Outcome;
  /** What arrived, when the outcome is an error. */
  readonly detail?: string;
}

export interface Scenario {
  readonly name: string;
  readonly kind: Kind;
  /** Relative frequency in the mix. */
  readonly weight: number;
  run(lane: Lane): Promise<Verdict>;
}

/** The oversize scenario's body, and the limit the soak's server is started with. */
export const SOAK_MAX_INPUT_BYTES = 4 * 1024 * 1024;

const rows = (n: number, width: number, seed: number): number[] =>
  Array.from({ length: n * width }, (_, i) => Math.sin(i * 12.9898 + seed) * 0.5);

const mlpSet = (n: number): InputSet => [
  { name: 'INPUT0', datatype: 'FP32', shape: [n, 784], elements: rows(n, 784, n) },
];
const simpleSet: InputSet = [
  { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], elements: rows(1, 16, 1).map(Math.round) },
  { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], elements: rows(1, 16, 2).map(Math.round) },
];
const bytesSet: InputSet = [
  {
    name: 'INPUT0',
    datatype: 'BYTES',
    shape: [1, 3],
    elements: ['soak', 'ü∂', 'x'.repeat(300)],
  },
];

function inferCall(model: string, set: InputSet, binary: boolean): HttpCall {
  const b = binary ? binaryRequestBody(set) : jsonRequestBody(set);
  const headers: Record<string, string | number> = { 'content-type': b.contentType };
  if (b.inferenceHeaderLength !== undefined)
    headers['inference-header-content-length'] = b.inferenceHeaderLength;
  return { method: 'POST', path: `/v2/models/${model}/infer`, headers, body: Buffer.from(b.body) };
}

const rawCall = (model: string, body: string): HttpCall => ({
  method: 'POST',
  path: `/v2/models/${model}/infer`,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body),
});

/** An HTTP request that must be answered with `expect` (200) or any 4xx (`'4xx'`). */
function httpScenario(
  name: string,
  kind: Kind,
  weight: number,
  call: HttpCall,
  expect: 200 | '4xx',
): Scenario {
  return {
    name,
    kind,
    weight,
    async run(lane) {
      const a = await httpRequest(lane.http, call);
      if (expect === 200 && a.status === 200) return { outcome: 'ok' };
      if (expect === '4xx' && a.status !== null && a.status >= 400 && a.status < 500)
        return { outcome: 'rejected' };
      return { outcome: 'error', detail: `${a.status ?? a.error} ${a.bodySample}` };
    },
  };
}

const wsTensors = (set: InputSet): Record<string, unknown>[] =>
  set.map((t) => {
    const body = binaryRequestBody([t]);
    return {
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      data: Buffer.from(body.body.subarray(body.inferenceHeaderLength ?? 0)),
    };
  });

const GARBAGE = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff));

const describe = (end: WsEnd): string => (end === 'closed' ? 'socket closed' : `${end.errorCode}`);

/** A frame on the lane's socket that must succeed (`'ok'`) or fail with an error frame. */
function wsScenario(
  name: string,
  kind: Kind,
  weight: number,
  frame: Record<string, unknown>,
  expect: 'ok' | 'error-frame',
): Scenario {
  return {
    name,
    kind,
    weight,
    async run(lane) {
      const end = await (await lane.socket()).request(frame).end;
      if (end !== 'closed' && expect === 'ok' && end.errorCode === null) return { outcome: 'ok' };
      if (end !== 'closed' && expect === 'error-frame' && end.errorCode !== null)
        return { outcome: 'rejected' };
      return { outcome: 'error', detail: describe(end) };
    },
  };
}

function wsFrame(model: string, set: InputSet): Record<string, unknown> {
  return { model, inputs: wsTensors(set) };
}

export function soakScenarios(): Scenario[] {
  const mlpBig = inferCall('mlp', mlpSet(128), true); // ~400 KB: long enough to cut mid-body
  return [
    // Good.
    httpScenario('http-json mlp', 'good', 12, inferCall('mlp', mlpSet(1), false), 200),
    httpScenario('http-binary mlp x8', 'good', 12, inferCall('mlp', mlpSet(8), true), 200),
    httpScenario('http-json simple', 'good', 6, inferCall('simple', simpleSet, false), 200),
    httpScenario(
      'http-binary identity_bytes',
      'good',
      6,
      inferCall('identity_bytes', bytesSet, true),
      200,
    ),
    wsScenario('ws mlp x4', 'good', 12, wsFrame('mlp', mlpSet(4)), 'ok'),
    wsScenario('ws simple', 'good', 6, wsFrame('simple', simpleSet), 'ok'),
    wsScenario('ws identity_bytes', 'good', 6, wsFrame('identity_bytes', bytesSet), 'ok'),
    // Bad.
    httpScenario(
      'http malformed JSON',
      'bad',
      3,
      rawCall('mlp', '{"inputs": [{"name": "IN'),
      '4xx',
    ),
    httpScenario(
      'http wrong shape',
      'bad',
      3,
      rawCall(
        'mlp',
        '{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,3],"data":[1,2,3]}]}',
      ),
      '4xx',
    ),
    httpScenario(
      'http wrong datatype',
      'bad',
      3,
      rawCall(
        'simple',
        '{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,16],"data":[' +
          Array(16).fill('0.5').join(',') +
          ']},{"name":"INPUT1","datatype":"INT32","shape":[1,16],"data":[' +
          Array(16).fill('1').join(',') +
          ']}]}',
      ),
      '4xx',
    ),
    httpScenario(
      'http unknown model',
      'bad',
      3,
      inferCall('no_such_model', simpleSet, false),
      '4xx',
    ),
    {
      name: 'http oversize body',
      kind: 'bad',
      weight: 1,
      async run(lane) {
        // The server may answer before it has read the body and close: a 4xx, or (if the close
        // beat the answer to the client) no status at all. A 200 or a 5xx is an error.
        const status = await abortedHttpRequest(
          lane.http,
          { ...rawCall('mlp', ' '.repeat(SOAK_MAX_INPUT_BYTES + 1024)) },
          { kind: 'after-body', afterMs: 200 },
        );
        if (status === null || (status >= 400 && status < 500)) return { outcome: 'rejected' };
        return { outcome: 'error', detail: `status ${status}` };
      },
    },
    wsScenario(
      'ws wrong shape',
      'bad',
      3,
      {
        model: 'mlp',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: Buffer.alloc(8) }],
      },
      'error-frame',
    ),
    wsScenario('ws unknown model', 'bad', 2, wsFrame('no_such_model', simpleSet), 'error-frame'),
    {
      name: 'ws garbage frame',
      kind: 'bad',
      weight: 2,
      async run(lane) {
        // 0xc1 is the one byte msgpack never uses: nothing of this frame decodes, so there is no
        // id to answer under and the server closes the socket with 1007 (docs/websocket-protocol.md).
        const socket = await SoakSocket.open(lane.wsUrl);
        await socket.unidentified(Buffer.concat([Buffer.from([0xc1]), GARBAGE]));
        await socket.close();
        return socket.closeCode === 1007
          ? { outcome: 'rejected' }
          : { outcome: 'error', detail: `close code ${socket.closeCode}` };
      },
    },
    {
      name: 'ws unusable id',
      kind: 'bad',
      weight: 2,
      async run(lane) {
        const frame = pack({ id: -1, ...wsFrame('mlp', mlpSet(1)) });
        const end = await (await lane.socket()).unidentified(frame);
        if (end !== 'closed' && end.errorCode === 'BAD_ID') return { outcome: 'rejected' };
        return { outcome: 'error', detail: describe(end) };
      },
    },
    // Cancelled.
    {
      name: 'http abort mid-body',
      kind: 'cancelled',
      weight: 3,
      async run(lane) {
        const status = await abortedHttpRequest(lane.http, mlpBig, {
          kind: 'mid-body',
          fraction: 0.5,
        });
        return status === null || status < 500
          ? { outcome: 'cancelled' }
          : { outcome: 'error', detail: `status ${status}` };
      },
    },
    {
      name: 'http abort in flight',
      kind: 'cancelled',
      weight: 3,
      async run(lane) {
        const status = await abortedHttpRequest(lane.http, mlpBig, {
          kind: 'after-body',
          afterMs: 1,
        });
        if (status === null) return { outcome: 'cancelled' };
        return status === 200
          ? { outcome: 'ok' }
          : { outcome: 'error', detail: `status ${status}` };
      },
    },
    {
      name: 'ws cancel frame',
      kind: 'cancelled',
      weight: 3,
      async run(lane) {
        const socket = await lane.socket();
        const { id, end } = socket.request(wsFrame('mlp', mlpSet(64)));
        socket.cancel(id);
        const e = await end;
        if (e !== 'closed' && e.errorCode === 'CANCELLED') return { outcome: 'cancelled' };
        if (e !== 'closed' && e.errorCode === null) return { outcome: 'ok' }; // answered first
        return { outcome: 'error', detail: describe(e) };
      },
    },
    {
      name: 'ws close in flight',
      kind: 'cancelled',
      weight: 2,
      async run(lane) {
        const socket = await SoakSocket.open(lane.wsUrl);
        const ends = Array.from(
          { length: 4 },
          () => socket.request(wsFrame('mlp', mlpSet(32))).end,
        );
        await socket.close();
        const all = await Promise.all(ends);
        const bad = all.find(
          (e) => e !== 'closed' && e.errorCode !== null && e.errorCode !== 'CANCELLED',
        );
        return bad === undefined
          ? { outcome: 'cancelled' }
          : { outcome: 'error', detail: describe(bad) };
      },
    },
  ];
}
