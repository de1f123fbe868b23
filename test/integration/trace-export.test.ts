// Triton's trace extension in OpenTelemetry mode, end to end: a real server exports spans over
// OTLP/HTTP protobuf to a real receiver started here (test/helpers/otlp-receiver.ts). The settings
// API over HTTP and gRPC with Triton's semantics and errors; span names, events in order and
// attributes; an ensemble's steps as child spans; a client's W3C traceparent honoured on HTTP,
// gRPC metadata and WebSocket frames, a malformed one ignored; rate and count honoured; and a
// collector that is down fails no request, its spans counted as dropped.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import { parseTraceConfig } from '../../src/trace/trace-config.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { grpcClient } from '../helpers/grpc-client.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';
import { SIMPLE_TWICE_CONFIG } from '../helpers/ensemble-configs.js';
import { copyModel, tempRepository, writeModel } from '../helpers/temp-repository.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const CHAIN = SIMPLE_TWICE_CONFIG;

// A JavaScript model that calls simple over BLS and answers OUTPUT0 (X + X).
const CALLER_CONFIG = `name: "js_caller"
backend: "javascript"
max_batch_size: 8
input [ { name: "X" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "Y" data_type: TYPE_INT32 dims: [ 16 ] } ]
`;
const CALLER_SOURCE = `
export async function execute(requests, context) {
  return Promise.all(requests.map(async (r) => {
    const x = r.inputs.X;
    const got = await context.infer('simple', {
      INPUT0: { datatype: 'INT32', shape: x.shape, data: x.data },
      INPUT1: { datatype: 'INT32', shape: x.shape, data: x.data },
    }, { outputs: ['OUTPUT0'] });
    if (got instanceof Error) return got;
    return { outputs: { Y: { shape: x.shape, data: got.outputs.OUTPUT0.data } } };
  }));
}
`;

const DATA = Array.from({ length: 16 }, (_, i) => i);

function body(model: 'simple' | 'simple_twice', id: string): unknown {
  const [a, b] = model === 'simple' ? ['INPUT0', 'INPUT1'] : ['A', 'B'];
  return {
    id,
    inputs: [
      { name: a, datatype: 'INT32', shape: [1, 16], data: DATA },
      { name: b, datatype: 'INT32', shape: [1, 16], data: DATA },
    ],
  };
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const traceparent = (traceId = TRACE_ID, parent = PARENT_ID): string =>
  `00-${traceId}-${parent}-01`;

const names = (s: ReceivedSpan): string[] => s.events.map((e) => e.name);
const inOrder = (s: ReceivedSpan): boolean =>
  s.events.every((e, i) => i === 0 || (s.events[i - 1] as { ns: bigint }).ns <= e.ns);

async function setting(t: TestServer, path: string, update: unknown): Promise<any> {
  const r = await postJson(`${t.base}${path}`, update);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json;
}

void describe('trace export over OTLP (OpenTelemetry mode)', () => {
  let t: TestServer;
  let otlp: OtlpReceiver;

  before(async () => {
    otlp = await startOtlpReceiver();
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    await writeModel(repo, 'simple_twice', CHAIN);
    await mkdir(path.join(repo, 'js_caller', '1'), { recursive: true });
    await writeFile(path.join(repo, 'js_caller', 'config.pbtxt'), CALLER_CONFIG);
    await writeFile(path.join(repo, 'js_caller', '1', 'model.mjs'), CALLER_SOURCE);
    t = await startTestServer({
      modelRepositories: [repo],
      traceConfig: parseTraceConfig([
        'mode=opentelemetry',
        `opentelemetry,url=${otlp.url}`,
        'opentelemetry,bsp_schedule_delay=20',
        'opentelemetry,resource=service.name=infernode-test',
        'rate=1',
        'level=OFF',
      ]),
    });
  });
  after(async () => {
    await t?.close();
    await otlp?.close();
  });

  void it('answers the settings as Triton does, model settings over global ones', async () => {
    const global = (await (await fetch(`${t.base}/v2/trace/setting`)).json()) as any;
    assert.deepEqual(global, {
      trace_level: ['OFF'],
      trace_rate: '1',
      trace_count: '-1',
      log_frequency: '0',
      trace_mode: 'opentelemetry',
    });
    const model = await setting(t, '/v2/models/simple/trace/setting', {
      trace_level: ['TIMESTAMPS'],
      trace_rate: '5',
    });
    assert.deepEqual(model.trace_level, ['TIMESTAMPS']);
    assert.equal(model.trace_rate, '5');
    // Unset model settings follow the global ones, also after they change.
    await setting(t, '/v2/trace/setting', { trace_count: '7' });
    const after = (await (await fetch(`${t.base}/v2/models/simple/trace/setting`)).json()) as any;
    assert.equal(after.trace_count, '7');
    assert.equal(after.trace_rate, '5');
    // null clears a model setting: it follows the global one again.
    const cleared = await setting(t, '/v2/models/simple/trace/setting', {
      trace_rate: null,
      trace_level: null,
    });
    assert.equal(cleared.trace_rate, '1');
    assert.deepEqual(cleared.trace_level, ['OFF']);
    // On the server, null restores the --trace-config value.
    assert.equal((await setting(t, '/v2/trace/setting', { trace_count: null })).trace_count, '-1');
  });

  void it('refuses invalid settings with 400 naming what was expected and what arrived', async () => {
    const cases: [unknown, RegExp][] = [
      [{ trace_rate: 'abc' }, /trace_rate: expected a positive integer, got "abc"/],
      [{ trace_rate: '0' }, /trace_rate: expected a positive integer, got "0"/],
      [{ trace_count: '-2' }, /trace_count: expected an integer >= -1, got "-2"/],
      [{ trace_level: ['LOUD'] }, /trace_level: expected OFF or TIMESTAMPS, got "LOUD"/],
      [{ trace_level: ['TENSORS'] }, /TENSORS is not supported/],
      [{ trace_rate: 5 }, /trace_rate: expected a string value, got the number 5/],
      [{ trace_mode: 'triton' }, /expected "opentelemetry".*got "triton"/],
      [{ trace_file: '/tmp/x' }, /trace_file cannot be set over the network/],
      [{ sampling: '1' }, /unknown trace setting 'sampling'/],
      ['[1]', /must be a JSON object, got an array/],
    ];
    for (const [update, message] of cases) {
      const r = await postJson(`${t.base}/v2/trace/setting`, update);
      assert.equal(r.status, 400, JSON.stringify(update));
      assert.match(r.json.error, message);
    }
    const unknown = await postJson(`${t.base}/v2/models/nope/trace/setting`, { trace_rate: '2' });
    assert.equal(unknown.status, 404);
    // Nothing changed.
    const global = (await (await fetch(`${t.base}/v2/trace/setting`)).json()) as any;
    assert.equal(global.trace_rate, '1');
  });

  void it('serves TraceSetting over gRPC: read, update, clear, INVALID_ARGUMENT', async () => {
    const c = grpcClient(t.grpcTarget);
    try {
      const read = await c.call('TraceSetting', {});
      assert.deepEqual(read.settings.trace_rate.value, ['1']);
      const set = await c.call('TraceSetting', {
        model_name: 'simple',
        settings: { trace_rate: { value: ['3'] } },
      });
      assert.deepEqual(set.settings.trace_rate.value, ['3']);
      const cleared = await c.call('TraceSetting', {
        model_name: 'simple',
        settings: { trace_rate: { value: [] } },
      });
      assert.deepEqual(cleared.settings.trace_rate.value, ['1']);
      await assert.rejects(
        c.call('TraceSetting', { settings: { trace_rate: { value: ['x'] } } }),
        (e: any) => e.code === 3 && /expected a positive integer, got "x"/.test(e.details),
      );
    } finally {
      c.close();
    }
  });

  void it('exports a span per request with Triton’s events, under the client’s traceparent', async () => {
    await setting(t, '/v2/trace/setting', { trace_level: ['TIMESTAMPS'], trace_rate: '1' });
    const r = await postJson(`${t.base}/v2/models/simple/infer`, body('simple', 'req-1'), {
      traceparent: traceparent(),
    });
    assert.equal(r.status, 200);
    const [span] = await otlp.waitFor(1, (s) => s.attributes['triton.request_id'] === 'req-1');
    assert.ok(span);
    assert.equal(span.name, 'simple');
    assert.equal(span.traceId, TRACE_ID);
    assert.equal(span.parentSpanId, PARENT_ID);
    assert.equal(span.attributes['triton.model_name'], 'simple');
    assert.equal(span.attributes['triton.model_version'], '1');
    assert.equal(span.resource['service.name'], 'infernode-test');
    assert.deepEqual(names(span), ['REQUEST_START', 'QUEUE_START', 'REQUEST_END']);
    assert.ok(inOrder(span));
    const [compute] = await otlp.waitFor(1, (s) => s.parentSpanId === span.spanId);
    assert.ok(compute);
    assert.equal(compute.name, 'compute');
    assert.equal(compute.traceId, TRACE_ID);
    assert.deepEqual(names(compute), [
      'COMPUTE_START',
      'COMPUTE_INPUT_END',
      'COMPUTE_OUTPUT_START',
      'COMPUTE_END',
    ]);
    assert.ok(inOrder(compute));
    // The compute span lies inside the request's, after the queue started.
    const queued = span.events[1]?.ns as bigint;
    assert.ok(compute.startNs >= queued && compute.endNs <= span.endNs);
    // Wall-clock times: within a minute of now.
    const now = BigInt(Date.now()) * 1_000_000n;
    assert.ok(span.startNs > now - 60_000_000_000n && span.startNs <= now);
  });

  void it('makes an ensemble’s steps child spans of the ensemble’s span', async () => {
    const tid = '1'.repeat(32);
    const r = await postJson(
      `${t.base}/v2/models/simple_twice/infer`,
      body('simple_twice', 'e-1'),
      {
        traceparent: traceparent(tid),
      },
    );
    assert.equal(r.status, 200);
    const [ensemble] = await otlp.waitFor(1, (s) => s.traceId === tid && s.name === 'simple_twice');
    assert.ok(ensemble);
    assert.equal(ensemble.parentSpanId, PARENT_ID);
    const steps = await otlp.waitFor(
      2,
      (s) => s.traceId === tid && s.name === 'simple' && s.parentSpanId === ensemble.spanId,
    );
    assert.equal(steps.length, 2);
    for (const step of steps) {
      assert.ok(step.startNs >= ensemble.startNs && step.endNs <= ensemble.endNs);
      await otlp.waitFor(1, (s) => s.name === 'compute' && s.parentSpanId === step.spanId);
    }
  });

  void it('makes a BLS call a child span of the calling request’s span', async () => {
    const tid = '4'.repeat(32);
    const r = await postJson(
      `${t.base}/v2/models/js_caller/infer`,
      { id: 'bls-1', inputs: [{ name: 'X', datatype: 'INT32', shape: [1, 16], data: DATA }] },
      { traceparent: traceparent(tid) },
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const [caller] = await otlp.waitFor(1, (s) => s.traceId === tid && s.name === 'js_caller');
    assert.ok(caller);
    const [callee] = await otlp.waitFor(
      1,
      (s) => s.traceId === tid && s.name === 'simple' && s.parentSpanId === caller.spanId,
    );
    assert.ok(callee && callee.startNs >= caller.startNs && callee.endNs <= caller.endNs);
  });

  void it('honours traceparent in gRPC metadata and in a WebSocket frame', async () => {
    const grpcTrace = '2'.repeat(32);
    const c = grpcClient(t.grpcTarget);
    try {
      const raw = Buffer.from(Int32Array.from(DATA).buffer);
      await c.call(
        'ModelInfer',
        {
          model_name: 'simple',
          id: 'g-1',
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
            { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
          ],
          raw_input_contents: [raw, raw],
        },
        { traceparent: traceparent(grpcTrace) },
      );
    } finally {
      c.close();
    }
    const [g] = await otlp.waitFor(1, (s) => s.traceId === grpcTrace && s.name === 'simple');
    assert.equal(g?.parentSpanId, PARENT_ID);

    // ModelStreamInfer: the stream's metadata carries the context for each request on it.
    const streamTrace = 'a'.repeat(32);
    const s = grpcClient(t.grpcTarget);
    try {
      const metadata = new Metadata();
      metadata.set('traceparent', traceparent(streamTrace));
      const stream = s.stub.ModelStreamInfer(metadata);
      const raw = Buffer.from(Int32Array.from(DATA).buffer);
      const answers = new Promise<any[]>((resolve, reject) => {
        const got: any[] = [];
        stream.on('data', (m: any) => {
          got.push(m);
          if (got.length === 2) resolve(got);
        });
        stream.on('error', reject);
      });
      for (const id of ['s-1', 's-2']) {
        stream.write({
          model_name: 'simple',
          id,
          inputs: [
            { name: 'INPUT0', datatype: 'INT32', shape: [1, 16] },
            { name: 'INPUT1', datatype: 'INT32', shape: [1, 16] },
          ],
          raw_input_contents: [raw, raw],
        });
      }
      for (const m of await answers) assert.equal(m.error_message, '', m.error_message);
      stream.end();
    } finally {
      s.close();
    }
    const streamed = await otlp.waitFor(2, (x) => x.traceId === streamTrace && x.name === 'simple');
    assert.deepEqual(
      streamed.map((x) => x.parentSpanId),
      [PARENT_ID, PARENT_ID],
    );

    const wsTrace = '3'.repeat(32);
    const packr = new Packr({ useRecords: false });
    const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
    const socket = new WebSocket(`${t.base.replace('http', 'ws')}${WS_PATH}`, [MSGPACK_PROTOCOL]);
    socket.binaryType = 'nodebuffer';
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const reply = new Promise<any>((resolve) =>
      socket.once('message', (data: Buffer) => resolve(unpackr.unpack(data))),
    );
    const tensor = (name: string) => ({
      name,
      datatype: 'INT32',
      shape: [1, 16],
      data: Buffer.from(Int32Array.from(DATA).buffer),
    });
    socket.send(
      packr.pack({
        id: 1,
        model: 'simple',
        inputs: [tensor('INPUT0'), tensor('INPUT1')],
        traceparent: traceparent(wsTrace),
      }),
    );
    const answer = await reply;
    socket.close();
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const [w] = await otlp.waitFor(1, (s) => s.traceId === wsTrace && s.name === 'simple');
    assert.equal(w?.parentSpanId, PARENT_ID);
  });

  void it('ignores a malformed traceparent: the request is served under a new trace', async () => {
    for (const [i, bad] of [
      'garbage',
      '00-xyz-b7ad6b7169203331-01',
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
    ].entries()) {
      const id = `bad-${i}`;
      const r = await postJson(`${t.base}/v2/models/simple/infer`, body('simple', id), {
        traceparent: bad,
      });
      assert.equal(r.status, 200, bad);
      const [span] = await otlp.waitFor(1, (s) => s.attributes['triton.request_id'] === id);
      assert.equal(span?.parentSpanId, '', bad);
      assert.notEqual(span?.traceId, TRACE_ID, bad);
      assert.match(span?.traceId ?? '', /^[0-9a-f]{32}$/);
    }
  });

  void it('traces every trace_rate-th request while trace_count lasts', async () => {
    await setting(t, '/v2/models/simple/trace/setting', { trace_rate: '2', trace_count: '3' });
    const before = otlp.spans.length;
    for (let i = 0; i < 10; i++) {
      const r = await postJson(`${t.base}/v2/models/simple/infer`, body('simple', `rate-${i}`));
      assert.equal(r.status, 200);
    }
    const traced = await otlp.waitFor(
      3,
      (s) => s.attributes['triton.request_id']?.startsWith('rate-') ?? false,
    );
    await new Promise((r) => setTimeout(r, 300)); // the batch after would have arrived by now
    const all = otlp.spans
      .slice(before)
      .filter((s) => s.attributes['triton.request_id']?.startsWith('rate-'))
      .map((s) => s.attributes['triton.request_id']);
    assert.equal(traced.length, 3);
    assert.deepEqual(all.sort(), ['rate-1', 'rate-3', 'rate-5']);
    const left = (await (await fetch(`${t.base}/v2/models/simple/trace/setting`)).json()) as any;
    assert.equal(left.trace_count, '0');
    // The server's own count is untouched: the model counts its own.
    const global = (await (await fetch(`${t.base}/v2/trace/setting`)).json()) as any;
    assert.equal(global.trace_count, '-1');
  });
});

void describe('trace export with the collector down', () => {
  let t: TestServer;

  before(async () => {
    // A port that refuses: a receiver started and closed again.
    const gone = await startOtlpReceiver();
    await gone.close();
    const repo = await tempRepository();
    await copyModel(repo, 'simple');
    t = await startTestServer({
      modelRepositories: [repo],
      traceConfig: parseTraceConfig([
        `opentelemetry,url=${gone.url}`,
        'opentelemetry,bsp_schedule_delay=20',
        'opentelemetry,bsp_max_queue_size=4',
        'level=TIMESTAMPS',
        'rate=1',
      ]),
    });
  });
  after(async () => {
    await t?.close();
  });

  void it('serves every request and counts the spans it could not export', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postJson(`${t.base}/v2/models/simple/infer`, body('simple', `down-${i}`)),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 200),
    );
    let dropped = 0;
    for (let i = 0; i < 200 && dropped === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const text = await (await fetch(`${t.metricsBase}/metrics`)).text();
      dropped = Number(/^infernode_trace_spans_dropped_total (\d+)/m.exec(text)?.[1] ?? 0);
    }
    assert.ok(dropped > 0, 'spans counted as dropped');
  });
});
