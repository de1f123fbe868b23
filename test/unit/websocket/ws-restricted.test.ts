// --http-restricted-api on the WebSocket endpoint, driven through a fake socket: each frame is
// checked against what the upgrade's headers allow, a refused frame gets a RESTRICTED_API error
// frame and never reaches the scheduler, and the socket stays open.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApiRestrictions, RestrictedApis } from '../../../src/http/restricted-apis.js';
import { FRAME_CATEGORY } from '../../../src/websocket/frame-category.js';
import { Packr } from 'msgpackr';
import { flush } from '../scheduler/fixtures.js';
import { brief, harness } from './ws-session-harness.js';

const packr = new Packr({ useRecords: false });

const restricted = new RestrictedApis(
  parseApiRestrictions(['inference:X-Infer-Key=k', 'model-repository:Admin=a']),
);

void describe('WsSession: restricted APIs', () => {
  void it('files infer and cancel frames under inference, repository frames under model-repository, shm frames under shared-memory', () => {
    assert.deepEqual(FRAME_CATEGORY, {
      infer: 'inference',
      cancel: 'inference',
      repository_index: 'model-repository',
      model_load: 'model-repository',
      model_unload: 'model-repository',
      shm_register: 'shared-memory',
      shm_unregister: 'shared-memory',
      shm_status: 'shared-memory',
    });
  });

  void it('refuses repository frames without their own header, and passes them on with it', async () => {
    const frames = [
      { type: 'repository_index', id: 1 },
      { type: 'model_load', id: 2, model: 'm' },
      { type: 'model_unload', id: 3, model: 'm' },
    ];
    const without = harness({ restricted, headers: new Map([['x-infer-key', 'k']]) });
    for (const f of frames) without.session.message(packr.pack(f), true, false);
    await flush();
    assert.deepEqual(without.socket.replies().map(brief), [
      [1, 'RESTRICTED_API'],
      [2, 'RESTRICTED_API'],
      [3, 'RESTRICTED_API'],
    ]);
    const admin = harness({ restricted, headers: new Map([['admin', 'a']]) });
    for (const f of frames.slice(1)) admin.session.message(packr.pack(f), true, false);
    await flush();
    // Past the restriction: the harness's data plane refuses load and unload as mode none does.
    assert.deepEqual(admin.socket.replies().map(brief), [
      [2, 'MODEL_CONTROL_DISABLED'],
      [3, 'MODEL_CONTROL_DISABLED'],
    ]);
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
