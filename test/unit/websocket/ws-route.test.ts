// The streaming route: which subprotocol an upgrade gets, and that the chosen one picks the frame
// codec a session speaks.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flatbuffersClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import {
  DEFAULT_WS_LIMITS,
  FLATBUFFERS_PROTOCOL,
  MSGPACK_PROTOCOL,
  WS_PATH,
} from '../../../src/websocket/ws-protocol.js';
import { flush } from '../scheduler/fixtures.js';
import { harness } from './ws-session-harness.js';

void describe('streamingRoute', () => {
  const { route } = harness({ limits: { maxInflight: 3 } });

  void it('serves /v2/ws with the configured limits over the defaults', () => {
    assert.equal(route.path, WS_PATH);
    assert.equal(route.limits.maxInflight, 3);
    assert.equal(route.limits.maxQueuedBytes, DEFAULT_WS_LIMITS.maxQueuedBytes);
    assert.equal(route.maxMessageBytes, DEFAULT_WS_LIMITS.maxFrameBytes);
  });

  void it('answers no protocol to a client that offers none, else the first it knows', () => {
    assert.deepEqual(route.selectProtocol([]), { protocol: '' });
    assert.deepEqual(route.selectProtocol([FLATBUFFERS_PROTOCOL, MSGPACK_PROTOCOL]), {
      protocol: FLATBUFFERS_PROTOCOL,
    });
    assert.deepEqual(route.selectProtocol(['chat', MSGPACK_PROTOCOL]), {
      protocol: MSGPACK_PROTOCOL,
    });
  });

  void it('refuses an upgrade offering only unknown protocols, naming both lists', () => {
    assert.deepEqual(route.selectProtocol(['chat', 'json']), {
      refused:
        'unsupported WebSocket subprotocol: expected one of infernode.msgpack.v1, ' +
        'infernode.flatbuffers.v1, got chat, json',
    });
  });

  void it('speaks FlatBuffers on a socket accepted with its subprotocol', async () => {
    const h = harness({ protocol: FLATBUFFERS_PROTOCOL });
    const frame = flatbuffersClientCodec.encodeRequest(
      4,
      'm',
      [tensor('IN', 'FP32', [1, 2], Float32Array.of(1, 2))],
      {},
    );
    h.session.message(frame, true, false);
    await flush();
    await h.complete(0);
    const [bytes] = h.socket.frames;
    assert.ok(bytes !== undefined);
    const reply = flatbuffersClientCodec.decodeReply(bytes);
    assert.ok('result' in reply);
    assert.equal(reply.id, 4);
    assert.deepEqual([...(reply.result.outputs[0]?.data as Float32Array)], [2, 4]);
  });
});
