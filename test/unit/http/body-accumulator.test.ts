// Unit and property tests for the request body buffer: any split of the bytes into chunks gives the
// same body, the limit and Content-Length are enforced per chunk, and chunks are copied.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { InferenceServerError } from '../../../src/errors.js';
import { BodyAccumulator } from '../../../src/http/body-accumulator.js';

/** Splits `bytes` at the given cut points (sorted, deduplicated, in range). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(at, p));
    at = p;
  }
  return chunks;
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof InferenceServerError);
    return error.code;
  }
  return 'no error';
}

void test('property: any chunking of a body gives the same bytes, for both framings', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 0, maxLength: 300_000 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      (bytes, cuts) => {
        for (const framing of [
          { kind: 'length', length: bytes.length } as const,
          { kind: 'chunked' } as const,
        ]) {
          if (framing.kind === 'length' && bytes.length === 0) continue; // that is framing 'none'
          const body = new BodyAccumulator(framing, 1_000_000);
          for (const chunk of split(bytes, cuts)) body.append(chunk);
          assert.deepEqual(body.finish(), bytes);
        }
      },
    ),
    { numRuns: 60 },
  );
});

void test('chunks are copied: reusing the caller buffer does not change the body', () => {
  const scratch = new Uint8Array([1, 2, 3]);
  const body = new BodyAccumulator({ kind: 'chunked' }, 100);
  body.append(scratch);
  scratch.fill(9); // what uWS does to an onData chunk once the callback returns
  body.append(scratch);
  assert.deepEqual([...body.finish()], [1, 2, 3, 9, 9, 9]);
});

void test('a Content-Length body is one exact-size plain Uint8Array', () => {
  const body = new BodyAccumulator({ kind: 'length', length: 4 }, 100);
  body.append(new Uint8Array([1, 2]));
  body.append(new Uint8Array([3, 4]));
  const out = body.finish();
  assert.equal(
    Object.getPrototypeOf(out),
    Uint8Array.prototype,
    'not a Buffer (slice() semantics)',
  );
  assert.equal(out.buffer.byteLength, 4, 'allocated once at the declared size');
  assert.equal(out.byteOffset, 0);
});

void test('the limit is enforced on the running total of a chunked body', () => {
  const body = new BodyAccumulator({ kind: 'chunked' }, 10);
  body.append(new Uint8Array(6));
  body.append(new Uint8Array(4)); // exactly at the limit is fine
  try {
    body.append(new Uint8Array(1));
    assert.fail('expected BODY_TOO_LARGE');
  } catch (error) {
    assert.ok(error instanceof InferenceServerError);
    assert.equal(error.code, 'BODY_TOO_LARGE');
    assert.equal(
      error.message,
      'request JSON size of 11 bytes exceeds the maximum allowed input size of 10 bytes. ' +
        'Use --http-max-input-size to increase the limit.',
    );
  }
  assert.equal(body.length, 10);
});

void test('a chunked buffer grows geometrically but never past the limit', () => {
  const limit = 100_000;
  const body = new BodyAccumulator({ kind: 'chunked' }, limit);
  for (let i = 0; i < limit; i += 1000) body.append(new Uint8Array(1000));
  const out = body.finish();
  assert.equal(out.byteLength, limit);
  assert.ok(out.buffer.byteLength <= limit, `capacity ${out.buffer.byteLength} exceeds the limit`);
});

void test('more or fewer bytes than Content-Length are BAD_REQUEST', () => {
  const over = new BodyAccumulator({ kind: 'length', length: 3 }, 100);
  over.append(new Uint8Array(2));
  assert.equal(
    codeOf(() => over.append(new Uint8Array(2))),
    'BAD_REQUEST',
  );
  const under = new BodyAccumulator({ kind: 'length', length: 3 }, 100);
  under.append(new Uint8Array(2));
  assert.equal(
    codeOf(() => under.finish()),
    'BAD_REQUEST',
  );
});

void test('no body: empty chunks are fine, any byte is refused', () => {
  const body = new BodyAccumulator({ kind: 'none' }, 100);
  body.append(new Uint8Array(0));
  assert.equal(body.finish().byteLength, 0);
  assert.equal(
    codeOf(() => body.append(new Uint8Array(1))),
    'BAD_REQUEST',
  );
});

void test("a chunked body may arrive in 65,536 pieces, Triton's cap, and no more", () => {
  const tiny = new BodyAccumulator({ kind: 'chunked' }, 1 << 20);
  for (let i = 0; i < 65_536; i += 1) tiny.append(new Uint8Array(1));
  assert.throws(
    () => tiny.append(new Uint8Array(1)),
    (e: unknown) =>
      e instanceof InferenceServerError &&
      e.code === 'BAD_REQUEST' &&
      e.message ===
        'Chunked request body exceeds maximum of 65536 non-empty chunks. Send fewer or larger HTTP chunks.',
  );
  const sized = new BodyAccumulator({ kind: 'chunked' }, 1 << 24);
  for (let i = 0; i < 5000; i += 1) sized.append(new Uint8Array(1024));
  assert.equal(sized.finish().byteLength, 5000 * 1024);
  const framed = new BodyAccumulator({ kind: 'length', length: 5000 }, 1 << 20);
  for (let i = 0; i < 5000; i += 1) framed.append(new Uint8Array(1));
  assert.equal(framed.finish().byteLength, 5000, 'a Content-Length body has no piece budget');
});

void test('the tensor bytes after a JSON header start on a 64-byte boundary of the body buffer', () => {
  for (const framing of [{ kind: 'length', length: 300 } as const, { kind: 'chunked' } as const]) {
    for (const headerLength of [1, 37, 64, 100]) {
      const body = new BodyAccumulator(framing, 1000, headerLength);
      const bytes = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
      body.append(bytes.subarray(0, 150));
      body.append(bytes.subarray(150));
      const out = body.finish();
      assert.deepEqual(out, bytes, `${framing.kind}, header ${headerLength}`);
      assert.equal((out.byteOffset + headerLength) % 64, 0, `${framing.kind}, ${headerLength}`);
    }
  }
});

void test('every allocation is reserved first, and a refused reservation allocates nothing', () => {
  const asked: number[] = [];
  const framed = new BodyAccumulator({ kind: 'length', length: 5000 }, 1 << 20, 0, 'json', (n) => {
    asked.push(n);
  });
  framed.append(new Uint8Array(3000));
  framed.append(new Uint8Array(2000));
  assert.deepEqual(asked, [5000], 'a Content-Length body: its length, once, before any byte');

  asked.length = 0;
  const chunked = new BodyAccumulator({ kind: 'chunked' }, 200_000, 0, 'json', (n) => {
    asked.push(n);
  });
  for (let i = 0; i < 10; i += 1) chunked.append(new Uint8Array(15_000));
  assert.deepEqual(asked, [65_536, 131_072, 200_000], 'a chunked body: each new capacity');

  const full = (): never => {
    throw new InferenceServerError('CLIENT_MEMORY_FULL');
  };
  assert.equal(
    codeOf(() => new BodyAccumulator({ kind: 'length', length: 10 }, 100, 0, 'json', full)),
    'CLIENT_MEMORY_FULL',
  );
  const refused = new BodyAccumulator({ kind: 'chunked' }, 1 << 20, 0, 'json', full);
  assert.equal(
    codeOf(() => refused.append(new Uint8Array(10))),
    'CLIENT_MEMORY_FULL',
  );
  assert.equal(refused.length, 0, 'nothing was taken in');
});
