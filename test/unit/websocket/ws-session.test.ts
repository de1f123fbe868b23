// WsSession's flow control, driven through a fake socket: the per-socket in-flight cap, slots held
// until the response frame reaches the socket, the queue behind a full socket and its drain, the
// unread-bytes cap (close 1008), cancel frames, cancellation when the socket closes, and the error
// frames and close codes for frames it cannot use.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import { CLOSE_CODES } from '../../../src/websocket/ws-protocol.js';
import { flush } from '../scheduler/fixtures.js';
import { brief, harness, inferFrame } from './ws-session-harness.js';

/** The success frame the session sends for request `id` of the harness model with IN = [id, id+1]. */
function responseBytes(id: number): number {
  return msgpackCodec.encodeResponse(
    { key: id },
    {
      model_name: 'm',
      model_version: '1',
      outputs: [
        {
          name: 'OUT',
          datatype: 'FP32',
          shape: [1, 2],
          data: new Uint8Array(Float32Array.of(2 * id, 2 * id + 2).buffer),
          binary: false,
        },
      ],
    },
  ).byteLength;
}

void describe('WsSession: answering', () => {
  void it('answers each request when its run finishes, in completion order', async () => {
    const h = harness();
    await h.infer(1);
    await h.infer(2);
    assert.equal(h.target.runs.length, 2);
    assert.equal(h.session.inflight, 2);
    await h.complete(1);
    await h.complete(0);
    assert.deepEqual(h.socket.replies().map(brief), [
      [2, [4, 6]],
      [1, [2, 4]],
    ]);
    assert.equal(h.session.inflight, 0);
  });

  void it('answers data-plane failures with error frames carrying their code', async () => {
    const h = harness();
    await h.infer(1, 'nope');
    await h.infer(2);
    h.target.fail(0, 'ORT said no');
    await flush();
    const replies = h.socket.replies();
    assert.deepEqual(replies.map(brief), [
      [1, 'MODEL_NOT_FOUND'],
      [2, 'INFER_FAILED'],
    ]);
    const [notFound, failed] = replies;
    assert.ok(notFound !== undefined && 'error' in notFound);
    assert.equal(notFound.error.message, "Request for unknown model: 'nope' is not found");
    assert.ok(failed !== undefined && 'error' in failed);
    assert.equal(failed.error.message, 'ORT said no');
    // Only 5xx failures other than 503 go to the server's log.
    assert.deepEqual(
      h.serverErrors.map((e) => e.code),
      ['INFER_FAILED'],
    );
    assert.equal(h.session.inflight, 0);
  });

  void it('copies a volatile frame before returning, so a queued request reads its own data', async () => {
    const h = harness({ capacity: 1 });
    await h.infer(1);
    const frame = inferFrame(2);
    h.session.message(frame, true, true);
    frame.fill(0); // what uWS does to the message memory once the callback returns
    await h.complete(0);
    assert.equal(h.target.runs.length, 2, 'request 2 ran once request 1 freed the instance');
    await h.complete(1);
    assert.deepEqual(h.socket.replies().map(brief), [
      [1, [2, 4]],
      [2, [4, 6]],
    ]);
  });
});

void describe('WsSession: the in-flight cap', () => {
  void it('refuses requests over --ws-max-inflight with QUEUE_FULL, queueing nothing', async () => {
    const h = harness({ limits: { maxInflight: 2 } });
    await h.infer(1);
    await h.infer(2);
    await h.infer(3);
    assert.equal(h.target.runs.length, 2, 'request 3 never reached the scheduler');
    assert.equal(h.session.inflight, 2);
    const refusal = h.socket.replies()[0];
    assert.deepEqual(refusal, {
      id: 3,
      error: {
        code: 'QUEUE_FULL',
        message:
          'this socket already has 2 requests in flight, the limit (--ws-max-inflight 2); ' +
          'wait for responses before sending more',
      },
    });
    await h.complete(0);
    await h.infer(4);
    assert.equal(h.target.runs.length, 3, 'a slot freed by a response takes a new request');
  });

  void it('holds a slot until the response frame is handed to the socket', async () => {
    const h = harness({ limits: { maxInflight: 1 } });
    h.socket.buffered = h.route.limits.highWaterBytes; // the client has stopped reading
    await h.infer(1);
    await h.complete(0);
    assert.equal(h.socket.frames.length, 0, 'the response waits behind the full socket');
    assert.equal(h.session.inflight, 1, 'and keeps its slot');
    await h.infer(2);
    assert.equal(h.target.runs.length, 1, 'so the next request is refused');
    h.socket.buffered = 0;
    h.session.drain();
    assert.deepEqual(h.socket.replies().map(brief), [
      [1, [2, 4]],
      [2, 'QUEUE_FULL'],
    ]);
    assert.equal(h.session.inflight, 0);
  });
});

void describe('WsSession: backpressure', () => {
  void it('queues responses behind a full socket and drains them in order', async () => {
    const h = harness();
    for (const id of [1, 2, 3]) await h.infer(id);
    h.socket.buffered = h.route.limits.highWaterBytes;
    for (const i of [2, 0, 1]) await h.complete(i);
    assert.equal(h.socket.frames.length, 0);
    h.socket.buffered = 0;
    h.session.drain();
    assert.deepEqual(
      h.socket.replies().map((r) => r.id),
      [3, 1, 2],
    );
  });

  void it('stops draining when the socket fills again', async () => {
    // A high-water mark of one byte: every frame sent fills the socket until the next drain.
    const h = harness({ limits: { highWaterBytes: 1 } });
    for (const id of [1, 2, 3]) await h.infer(id);
    for (const i of [0, 1, 2]) await h.complete(i);
    assert.deepEqual(
      h.socket.replies().map((r) => r.id),
      [1],
      'the first response went straight out; the others queue behind it',
    );
    for (const sent of [2, 3]) {
      h.socket.buffered = 0;
      h.session.drain();
      assert.equal(h.socket.frames.length, sent, 'one frame per drain');
    }
    h.session.drain();
    assert.equal(h.socket.frames.length, 3, 'a drain with nothing queued sends nothing');
    assert.equal(h.session.inflight, 0);
  });

  void it('closes with 1008 once unread response bytes pass --ws-max-queued-bytes', async () => {
    const frame = responseBytes(1); // every response of this test has the same size
    const limit = 3 * frame - 1;
    const h = harness({ limits: { highWaterBytes: 1, maxQueuedBytes: limit } });
    for (const id of [1, 2, 3, 4]) await h.infer(id);
    await h.complete(0); // sent: the socket holds one frame
    await h.complete(1); // queued: two frames unread
    assert.deepEqual(h.socket.closes, []);
    await h.complete(2); // queued: three frames unread, over the limit
    assert.deepEqual(h.socket.closes, [
      [
        CLOSE_CODES.POLICY_VIOLATION,
        `slow consumer: ${3 * frame} response bytes unread, over the ${limit} limit`,
      ],
    ]);
    assert.equal(h.route.counters.snapshot().peakPendingBytes, 3 * frame);
    assert.equal(h.route.counters.snapshot().openSockets, 0);
    assert.equal(h.session.inflight, 0, 'request 4, still running, was cancelled');
    // The session is done: a late result, a drain and new frames all go nowhere.
    await h.complete(3);
    h.socket.buffered = 0;
    h.session.drain();
    await h.infer(5);
    assert.equal(h.socket.frames.length, 1);
    assert.equal(h.target.runs.length, 4);
    h.session.closed(); // the library reports the close later: counted once
    assert.equal(h.route.counters.snapshot().openSockets, 0);
  });

  void it('closes with 1008 when the socket refuses a frame', async () => {
    const h = harness();
    await h.infer(1);
    h.socket.refuse = true;
    await h.complete(0);
    assert.deepEqual(h.socket.closes, [
      [CLOSE_CODES.POLICY_VIOLATION, 'the socket refused a response frame'],
    ]);
    assert.equal(h.route.counters.snapshot().openSockets, 0);
  });
});

void describe('WsSession: cancellation', () => {
  void it('answers a cancel at once; a queued request then never runs', async () => {
    const h = harness({ capacity: 1 });
    await h.infer(1);
    await h.infer(2);
    await h.cancel(2);
    assert.deepEqual(h.socket.replies(), [
      { id: 2, error: { code: 'CANCELLED', message: 'request 2 was cancelled by the client' } },
    ]);
    assert.equal(h.session.inflight, 1);
    await h.complete(0);
    assert.equal(h.target.runs.length, 1, 'request 2 left the queue without running');
    assert.equal(h.version.scheduler.inflightCount(), 0);
  });

  void it('drops the late result of a cancelled running request, even when its id is reused', async () => {
    const h = harness();
    await h.infer(1);
    await h.cancel(1);
    await h.infer(1); // the id is free again once its CANCELLED frame went out
    assert.equal(h.target.runs.length, 2);
    await h.complete(0); // the cancelled run finishes: its result answers nobody
    assert.deepEqual(h.socket.replies().map(brief), [[1, 'CANCELLED']]);
    await h.complete(1);
    assert.deepEqual(h.socket.replies().map(brief), [
      [1, 'CANCELLED'],
      [1, [2, 4]],
    ]);
  });

  void it('ignores a cancel for an unknown or already answered id', async () => {
    const h = harness({ limits: { highWaterBytes: 1 } });
    await h.cancel(99);
    await h.infer(1);
    await h.complete(0);
    await h.cancel(1);
    await h.infer(2);
    await h.complete(1); // queued behind the full socket: answered, not yet sent
    await h.cancel(2);
    h.socket.buffered = 0;
    h.session.drain();
    assert.deepEqual(h.socket.replies().map(brief), [
      [1, [2, 4]],
      [2, [4, 6]],
    ]);
  });

  void it('cancels every request when the socket closes', async () => {
    const h = harness({ capacity: 1 });
    await h.infer(1);
    await h.infer(2);
    h.session.closed();
    assert.equal(h.session.inflight, 0);
    assert.equal(h.route.counters.snapshot().openSockets, 0);
    await h.complete(0); // the running request finishes; its result is dropped
    assert.equal(h.target.runs.length, 1, 'the queued request never ran');
    assert.equal(h.version.scheduler.inflightCount(), 0);
    assert.equal(h.socket.frames.length, 0);
    assert.deepEqual(h.socket.closes, [], 'the socket was already gone: nothing to close');
  });
});

void describe('WsSession: frames it cannot use', () => {
  void it('refuses an id already in flight with an error frame for that id', async () => {
    const h = harness();
    await h.infer(7);
    await h.infer(7);
    h.session.message(inferFrame('job'), true, false);
    h.session.message(inferFrame('job'), true, false);
    await flush();
    assert.deepEqual(h.socket.replies(), [
      {
        id: 7,
        error: {
          code: 'DUPLICATE_ID',
          message:
            'request id 7 is already in flight on this socket: this frame was not run, and the request in flight with that id continues unaffected',
        },
      },
      {
        id: 'job',
        error: {
          code: 'DUPLICATE_ID',
          message:
            'request id "job" is already in flight on this socket: this frame was not run, and the request in flight with that id continues unaffected',
        },
      },
    ]);
    assert.equal(h.target.runs.length, 2, 'the first 7 and the first "job" run');
    assert.equal(h.session.inflight, 2);
  });

  void it('answers a malformed frame whose id it can read, and stays open', async () => {
    const h = harness();
    // {"id": 5, "x": <bin claiming 255 bytes, 2 present>}: truncated after the id.
    h.session.message(Buffer.from('82a2696405a178c4ff0102', 'hex'), true, false);
    const [reply] = h.socket.replies();
    assert.ok(reply !== undefined && 'error' in reply);
    assert.equal(reply.id, 5);
    assert.equal(reply.error.code, 'BAD_REQUEST');
    assert.match(reply.error.message, /^undecodable frame: /);
    assert.deepEqual(h.socket.closes, []);
    await h.infer(6);
    assert.equal(h.target.runs.length, 1);
  });

  void it('closes with 1007 on a frame without a readable id', () => {
    const h = harness();
    h.session.message(Buffer.from([0x93, 1, 2, 3]), true, false);
    assert.equal(h.socket.closes.length, 1);
    const [code, reason] = h.socket.closes[0] ?? [];
    assert.equal(code, CLOSE_CODES.INVALID_PAYLOAD);
    assert.match(reason ?? '', /^undecodable frame: /);
    assert.ok(Buffer.byteLength(reason ?? '') <= 123);
    assert.equal(h.socket.frames.length, 0);
    assert.equal(h.route.counters.snapshot().openSockets, 0);
  });

  void it('closes with 1003 on a text frame', () => {
    const h = harness();
    h.session.message(Buffer.from('{"id":1}'), false, false);
    assert.deepEqual(h.socket.closes, [
      [CLOSE_CODES.UNSUPPORTED_DATA, 'text frames are not supported: send binary frames'],
    ]);
  });
});

void describe('WsSession: server shutdown', () => {
  void it('answers the requests in flight, refuses new ones, then closes with 1001', async () => {
    const h = harness();
    await h.infer(1);
    await h.infer(2);
    h.session.shutdown();
    assert.deepEqual(h.socket.closes, [], 'open while requests are in flight');
    await h.infer(3);
    await h.complete(0);
    assert.deepEqual(h.socket.closes, []);
    await h.complete(1);
    assert.deepEqual(h.socket.replies().map(brief), [
      [3, 'SHUTTING_DOWN'],
      [1, [2, 4]],
      [2, [4, 6]],
    ]);
    assert.deepEqual(h.socket.closes, [[CLOSE_CODES.GOING_AWAY, 'server shutting down']]);
    assert.equal(h.target.runs.length, 2, 'the refused request never ran');
  });

  void it('closes only once the responses queued behind a full socket are handed over', async () => {
    const h = harness();
    await h.infer(1);
    h.socket.buffered = h.route.limits.highWaterBytes;
    await h.complete(0);
    h.session.shutdown();
    assert.deepEqual(h.socket.closes, [], 'the response is still queued');
    h.socket.buffered = 0;
    h.session.drain();
    assert.deepEqual(h.socket.replies().map(brief), [[1, [2, 4]]]);
    assert.deepEqual(h.socket.closes, [[CLOSE_CODES.GOING_AWAY, 'server shutting down']]);
  });

  void it('closes an idle socket at once; the route resolves when the adapter reports it gone', async () => {
    const h = harness();
    let allClosed = false;
    const closing = h.route.shutdown().then(() => {
      allClosed = true;
    });
    assert.deepEqual(h.socket.closes, [[CLOSE_CODES.GOING_AWAY, 'server shutting down']]);
    await flush();
    assert.equal(allClosed, false, 'the client has not answered the close yet');
    h.session.closed(); // the adapter: the socket is gone
    await closing;
  });
});
