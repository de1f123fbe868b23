// The block pool: size classes, reuse of what was released, the cap per class, and sizes it
// leaves alone.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlockPool } from '../../../src/memory/block-pool.js';

void describe('BlockPool', () => {
  void it('hands out a power-of-two class at least as large as asked, and reuses it', () => {
    const pool = new BlockPool();
    const a = pool.acquire(100_000);
    assert.equal(a.byteLength, 131_072);
    pool.release(a);
    assert.equal(pool.idle, 1);
    assert.equal(pool.acquire(70_000), a, 'same class: the released buffer comes back');
    assert.notEqual(pool.acquire(70_000), a, 'taken once, it is not handed out twice');
    assert.equal(pool.idle, 0);
  });

  void it('keeps at most four idle buffers per class, and each buffer once', () => {
    const pool = new BlockPool();
    const taken = Array.from({ length: 6 }, () => pool.acquire(8192));
    for (const b of taken) pool.release(b);
    pool.release(taken[0] as SharedArrayBuffer);
    assert.equal(pool.idle, 4);
  });

  void it('leaves small, huge and odd-sized buffers out', () => {
    const pool = new BlockPool();
    const small = pool.acquire(100);
    assert.equal(small.byteLength, 100);
    pool.release(small);
    pool.release(new SharedArrayBuffer(5000));
    assert.equal(pool.idle, 0);
  });

  void it('drops its idle buffers on request, and serves new ones after', () => {
    const pool = new BlockPool();
    const a = pool.acquire(8 * 1024);
    const b = pool.acquire(64 * 1024);
    pool.release(a);
    pool.release(b);
    assert.equal(pool.idle, 2);
    pool.dropIdle();
    assert.equal(pool.idle, 0);
    assert.notEqual(pool.acquire(8 * 1024), a, 'a fresh buffer: the dropped one is garbage');
  });
});
