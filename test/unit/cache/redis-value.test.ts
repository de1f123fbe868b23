// The Redis cache's value codec: a round trip keeps every output's name, datatype, shape and bytes;
// a value of another format version or magic is skipped, another key's is a miss, and a body that
// does not parse throws CorruptValueError (counted by the cache), never anything else.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash } from 'node:crypto';
import type { CacheKey } from '../../../src/cache/cache-key.js';
import type { CachedResponse } from '../../../src/cache/cached-response.js';
import {
  CorruptValueError,
  VALUE_FORMAT_VERSION,
  decodeValue,
  encodeValue,
  isCurrentFormat,
} from '../../../src/cache/redis-value.js';

function key(text: string): CacheKey {
  const bytes = new TextEncoder().encode(text);
  return { hash: hash('sha1', bytes, 'hex'), bytes };
}

const VALUE: CachedResponse = {
  outputs: [
    {
      name: 'OUTPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      data: new Uint8Array(Int32Array.from({ length: 16 }, (_, i) => i * 7 - 3).buffer),
    },
    { name: 'sortie_é', datatype: 'BYTES', shape: [2], data: Uint8Array.of(1, 0, 0, 0, 65) },
    { name: 'EMPTY', datatype: 'FP32', shape: [0, 4], data: new Uint8Array(0) },
    { name: 'SCALAR', datatype: 'FP64', shape: [], data: new Uint8Array(8).fill(0x3f) },
  ],
  byteSize: 64 + 5 + 0 + 8,
};

void describe('Redis cache value codec', () => {
  void it('round-trips every output exactly', () => {
    const k = key('model simple v1 inputs...');
    const bytes = encodeValue(k, VALUE);
    assert.ok(isCurrentFormat(bytes));
    const back = decodeValue(bytes, k);
    assert.ok(back !== undefined);
    assert.deepEqual(
      back.outputs.map((o) => ({ ...o, data: [...o.data] })),
      VALUE.outputs.map((o) => ({ ...o, data: [...o.data] })),
    );
    assert.equal(back.byteSize, 64 + 5 + 8);
    // The decoded data are private copies: the reply buffer can be reused.
    bytes.fill(0);
    assert.equal(back.outputs[0]?.data[0], VALUE.outputs[0]?.data[0]);
  });

  void it('skips a value of another format version or magic', () => {
    const k = key('k');
    const other = encodeValue(k, VALUE);
    other[4] = VALUE_FORMAT_VERSION + 1;
    assert.equal(isCurrentFormat(other), false);
    assert.equal(decodeValue(other, k), undefined);
    const foreign = encodeValue(k, VALUE);
    foreign[0] = 0x7b; // '{': someone's JSON
    assert.equal(decodeValue(foreign, k), undefined);
    assert.equal(decodeValue(Buffer.from('IFN'), k), undefined);
  });

  void it('misses on a value stored under another digest', () => {
    const stored = encodeValue(key('request A'), VALUE);
    const b = key('request B');
    assert.equal(decodeValue(stored, { hash: key('request A').hash, bytes: b.bytes }), undefined);
  });

  void it('throws CorruptValueError for a body that does not parse', () => {
    const k = key('k');
    const whole = encodeValue(k, VALUE);
    for (const cut of [6, 12, whole.byteLength - 1]) {
      assert.throws(() => decodeValue(whole.subarray(0, cut), k), CorruptValueError, `cut ${cut}`);
    }
    assert.throws(() => decodeValue(Buffer.concat([whole, Buffer.of(0)]), k), CorruptValueError);
    const badType = encodeValue(k, {
      outputs: [{ name: 'X', datatype: 'INT32', shape: [1], data: new Uint8Array(4) }],
      byteSize: 4,
    });
    badType.write('INT99', badType.indexOf('INT32'), 'latin1');
    assert.throws(() => decodeValue(badType, k), /unknown datatype 'INT99'/);
  });

  void it('throws only CorruptValueError on random damage to a current-format value', () => {
    const k = key('k');
    const whole = encodeValue(k, VALUE);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const damaged = Buffer.from(whole);
      for (let j = 0; j < 3; j++) damaged[5 + rand(damaged.byteLength - 5)] = rand(256);
      try {
        decodeValue(damaged.subarray(0, 5 + rand(damaged.byteLength - 4)), k);
      } catch (e) {
        assert.ok(e instanceof CorruptValueError, String(e));
      }
    }
  });
});
