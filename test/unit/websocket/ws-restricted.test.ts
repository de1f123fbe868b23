// --http-restricted-api on the WebSocket endpoint, driven through a fake socket: each frame is
// checked against what the upgrade's headers allow, a refused frame gets a RESTRICTED_API error
// frame and never reaches the scheduler, and the socket stays open.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApiRestrictions, RestrictedApis } from '../../../src/http/restricted-apis.js';
import { FRAME_CATEGORY } from '../../../src/websocket/frame-category.js';
import { brief, harness } from './ws-session-harness.js';

const restricted = new RestrictedApis(
  parseApiRestrictions(['inference:X-Infer-Key=k', 'model-repository:Admin=a']),
);

void describe('WsSession: restricted APIs', () => {
  void it('files infer and cancel frames under inference', () => {
    assert.deepEqual(FRAME_CATEGORY, { infer: 'inference', cancel: 'inference' });
  });

  void it('refuses infer and cancel frames from a socket upgraded without the header', async () => {
    const h = harness({ restricted, headers: new Map([['admin', 'a']]) });
    await h.infer(1);
    await h.cancel(1);
    await h.infer(2);
    assert.equal(h.target.runs.length, 0, 'nothing reached the scheduler');
    assert.equal(h.session.inflight, 0);
    const replies = h.socket.replies();
    assert.deepEqual(replies.map(brief), [
      [1, 'RESTRICTED_API'],
      [1, 'RESTRICTED_API'],
      [2, 'RESTRICTED_API'],
    ]);
    for (const r of replies) {
      assert.ok('error' in r);
      assert.equal(r.error.message, "This API is restricted, expecting header 'x-infer-key'");
    }
    assert.deepEqual(h.socket.closes, []);
  });

  void it('refuses a wrong value as it refuses a missing header', async () => {
    const h = harness({ restricted, headers: new Map([['x-infer-key', 'K']]) });
    await h.infer(7);
    assert.deepEqual(h.socket.replies().map(brief), [[7, 'RESTRICTED_API']]);
  });

  void it('serves infer and cancel frames from a socket upgraded with the header', async () => {
    const h = harness({ restricted, headers: new Map([['x-infer-key', 'k']]) });
    await h.infer(1);
    await h.infer(2);
    await h.cancel(2);
    await h.complete(0);
    assert.deepEqual(h.socket.replies().map(brief), [
      [2, 'CANCELLED'],
      [1, [2, 4]],
    ]);
  });
});
