// A BYTES input read from a shared-memory region at validation lands in the request's own movable
// memory: a lone large request then hands it to its worker (movedInputs) instead of copying it a
// second time into a batch block. Real /dev/shm file, real registry and validator.

import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { validateRequest } from '../../../src/dataplane/validate-request.js';
import { isMovable } from '../../../src/memory/movable-buffers.js';
import type { DecodedRequest } from '../../../src/protocol/inference-request.js';
import { movedInputs } from '../../../src/scheduler/moved-inputs.js';
import { RegionRegistry } from '../../../src/shared-memory/region-registry.js';
import { MODELS } from './validation-models.js';

const NAME = `infernode-test-region-input-${process.pid}`;
const FILE = `/dev/shm/${NAME}`;
after(() => rmSync(FILE, { force: true }));

/** `count` BYTES elements of `size` bytes each, length-prefixed. */
function serialized(count: number, size: number): Buffer {
  const out = Buffer.alloc(count * (4 + size), 0x61);
  for (let i = 0; i < count; i++) out.writeUInt32LE(size, i * (4 + size));
  return out;
}

void describe('a BYTES region input', () => {
  void it('is read into movable request memory, which a lone run moves without a second copy', () => {
    const count = 4;
    const bytes = serialized(count, 300 * 1024); // 1.2 MiB: past MOVE_MIN_BYTES
    writeFileSync(FILE, bytes);
    const registry = new RegionRegistry();
    registry.register('r', `/${NAME}`, 0, bytes.byteLength);
    const request: DecodedRequest = {
      parameters: {},
      inputs: [
        {
          name: 's',
          datatype: 'BYTES',
          shape: [1, count],
          parameters: {},
          data: { kind: 'shm', region: 'r', offset: 0, byteSize: bytes.byteLength },
        },
      ],
    };
    const v = validateRequest(MODELS.strings, request, {
      signal: new AbortController().signal,
      arrivalNs: 0,
      maxInputBytes: 8 << 20,
      sharedMemory: registry,
    });
    try {
      const input = v.inputs[0] ?? assert.fail('no input');
      const own = input.bytes ?? assert.fail('a BYTES region input has its bytes');
      assert.deepEqual(Buffer.from(own), bytes);
      assert.ok(isMovable(own.buffer), 'request memory that may move to the worker');
      const moved = movedInputs(v.inputs) ?? assert.fail('a lone large request moves its input');
      assert.equal(moved.transfer[0], own.buffer, 'the same memory, not a copy');
    } finally {
      v.regions?.releaseAll();
      registry.close();
    }
  });
});
