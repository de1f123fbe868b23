// The response cache key: the same documented preimage (the header's length, the JSON header, each
// input's bytes) whether it is hashed in one call (a small request) or piece by piece (a large one),
// and whether an input's bytes are one view or only written on demand; Redis entries written by
// either path must be read by the other, and by replicas of older versions.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { cacheKey } from '../../../src/cache/cache-key.js';
import type { ValidatedRequest } from '../../../src/scheduler/validated-request.js';

interface Input {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly viewed: boolean;
}

function request(inputs: readonly Input[], shmOutput = false): ValidatedRequest {
  return {
    model: 'm',
    version: 3,
    inputs: inputs.map((i) => ({
      name: i.name,
      datatype: 'UINT8',
      shape: [i.bytes.byteLength],
      byteLength: i.bytes.byteLength,
      write: (target: Uint8Array) => target.set(i.bytes),
      ...(i.viewed && { bytes: i.bytes }),
    })),
    outputs: [{ name: 'y', binary: true, ...(shmOutput && { shm: {} }) }],
  } as unknown as ValidatedRequest;
}

/** The preimage as docs/response-cache.md describes it, hashed independently. */
function expected(inputs: readonly Input[]): string {
  const header = JSON.stringify([
    'm',
    3,
    inputs.map((i) => [i.name, 'UINT8', [i.bytes.byteLength], i.bytes.byteLength]),
    [['y', true]],
  ]);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(Buffer.byteLength(header));
  const sha = createHash('sha256').update(len).update(header);
  for (const i of inputs) sha.update(i.bytes);
  return sha.digest('hex');
}

const filled = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, k) => (k * seed) & 255);

void describe('cacheKey', () => {
  for (const [label, size] of [
    ['small (one call)', 3136],
    ['large (piece by piece)', 100_000],
  ] as const) {
    void it(`hashes the documented preimage: ${label}`, () => {
      const inputs = [
        { name: 'a', bytes: filled(size, 7), viewed: true },
        { name: 'b', bytes: filled(64, 3), viewed: false },
      ];
      const key = cacheKey(request(inputs));
      assert.ok(key !== undefined);
      assert.equal(key.hash, expected(inputs));
      assert.equal(Buffer.from(key.bytes).toString('hex'), key.hash);
    });
  }

  void it('tells apart requests whose bytes differ in one element', () => {
    const a = filled(3136, 7);
    const b = Uint8Array.from(a);
    b[3000] = (b[3000] ?? 0) ^ 1;
    const ka = cacheKey(request([{ name: 'a', bytes: a, viewed: true }]));
    const kb = cacheKey(request([{ name: 'a', bytes: b, viewed: false }]));
    assert.notEqual(ka?.hash, kb?.hash);
  });

  void it('gives no key to a request whose output goes to shared memory', () => {
    assert.equal(
      cacheKey(request([{ name: 'a', bytes: filled(8, 1), viewed: true }], true)),
      undefined,
    );
  });
});
