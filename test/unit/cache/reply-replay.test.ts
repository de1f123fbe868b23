// ReplyReplay over a real LocalCache: a reply is stored only once its miss is marked cacheable, is
// keyed by the model version object, the framing and the bytes, and is invisible to the response
// cache's view of the same store.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCachedResponse } from '../../../src/cache/cached-response.js';
import { LocalCache } from '../../../src/cache/local-cache.js';
import {
  ReplayMiss,
  ReplyReplay,
  responseView,
  type LocalEntry,
} from '../../../src/cache/reply-replay.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const wire = (body: string, framing = '|') => ({ framing, bytes: bytes(body) });

void describe('ReplyReplay', () => {
  void it('stores a reply only when its miss was marked cacheable', () => {
    const store = new LocalCache<LocalEntry>(1 << 20);
    const replies = new ReplyReplay(store);
    const version = {};
    const first = replies.lookup(version, wire('{"a":1}'));
    assert.ok(first instanceof ReplayMiss);
    first.remember('json', [bytes('{"out":')]);
    assert.equal(store.usage().entries, 0, 'unmarked: nothing stored');

    const second = replies.lookup(version, wire('{"a":1}'));
    assert.ok(second instanceof ReplayMiss);
    second.markCacheable();
    second.remember('json', [bytes('{"out":'), bytes('2}')]);
    const hit = replies.lookup(version, wire('{"a":1}'));
    assert.ok(!(hit instanceof ReplayMiss));
    assert.equal(hit.framing, 'json');
    assert.equal(new TextDecoder().decode(hit.body), '{"out":2}');
  });

  void it('keys by model version object, framing and bytes', () => {
    const store = new LocalCache<LocalEntry>(1 << 20);
    const replies = new ReplyReplay(store);
    const v1 = {};
    const miss = replies.lookup(v1, wire('body', '12|'));
    assert.ok(miss instanceof ReplayMiss);
    miss.markCacheable();
    miss.remember('40', [bytes('reply')]);
    assert.ok(!(replies.lookup(v1, wire('body', '12|')) instanceof ReplayMiss));
    assert.ok(replies.lookup({}, wire('body', '12|')) instanceof ReplayMiss, 'a reloaded version');
    assert.ok(replies.lookup(v1, wire('body', '12|gzip')) instanceof ReplayMiss, 'other framing');
    assert.ok(replies.lookup(v1, wire('bodY', '12|')) instanceof ReplayMiss, 'other bytes');
  });

  void it('counts replies in the byte budget, and hides them from the response view', () => {
    const store = new LocalCache<LocalEntry>(1 << 20);
    const replies = new ReplyReplay(store);
    const miss = replies.lookup({}, wire('x'));
    assert.ok(miss instanceof ReplayMiss);
    miss.markCacheable();
    miss.remember('json', [new Uint8Array(1000)]);
    const usage = store.usage();
    assert.equal(usage.entries, 1);
    assert.ok(usage.bytes > 1000, `${usage.bytes} bytes counted`);

    const view = responseView(store);
    const response = toCachedResponse([
      { name: 'y', datatype: 'FP32', shape: [1], data: new Uint8Array(4), binary: false },
    ]);
    const key = { hash: 'f'.repeat(64), bytes: new Uint8Array(32) };
    assert.equal(view.insert(key, response, response.byteSize), true);
    assert.equal(view.lookup(key), response);
    assert.equal(view.usage?.().entries, 2, 'one store for both');
  });
});
