// A response cache key: every field of a validated request that changes the answer (model,
// version, each input's name, datatype, shape and bytes, each requested output's name and how it
// is returned), fed into one SHA-256 in a fixed, unambiguous order (a length-prefixed JSON header
// that carries every input's byte length, then each input's bytes). Only the 32-byte digest is
// kept: the request's bytes are never concatenated, copied or stored for the cache.
//
// Two different requests share a key only on a SHA-256 collision: none is known, and a random one
// is a 2^-128 birthday event even at 2^64 entries, far below the rate of undetected memory errors.
// So entries are matched by digest alone (Redis values carry the digest too, checked on read).

import type { ValidatedRequest } from '../scheduler/validated-request.js';
import { createHash, hash as oneShotHash } from 'node:crypto';

export interface CacheKey {
  /** The digest as hex: the table key (local Map, Redis key suffix). */
  readonly hash: string;
  /** The 32-byte SHA-256 digest itself. */
  readonly bytes: Uint8Array;
}

/** Inputs without a single view (JSON, shared memory) are written here, reused, when they fit. */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Uint8Array | undefined;
const headLength = new Uint8Array(4);

/**
 * The key of a request, or undefined when the request cannot be cached (its outputs go to
 * shared memory, which a cached answer would not fill).
 */
export function cacheKey(request: ValidatedRequest): CacheKey | undefined {
  for (const o of request.outputs) if (o.shm !== undefined) return undefined;
  const header = JSON.stringify([
    request.model,
    request.version,
    request.inputs.map((i) => [i.name, i.datatype, i.shape, i.byteLength]),
    request.outputs.map((o) => [o.name, o.binary]),
  ]);
  const headerBytes = Buffer.byteLength(header);
  let total = 4 + headerBytes;
  for (const input of request.inputs) total += input.byteLength;
  // A small request (mlp's 3 KiB) is laid out in one buffer and hashed in one call: no Hash
  // object, one native crossing. A large one is fed piece by piece, never copied whole.
  const bytes =
    total <= ONE_SHOT_MAX_BYTES
      ? oneShot(request, header, headerBytes, total)
      : streamed(request, header, headerBytes);
  return { hash: bytes.toString('hex'), bytes };
}

/** The preimage's bytes up to which it is laid out whole and hashed in one call. */
const ONE_SHOT_MAX_BYTES = 16 * 1024;

/**
 * SHA-256 of one buffer in one call: crypto.hash on Node 20.12+ and 22 (no Hash object); the
 * engines range starts at 20.9, which has only createHash. Reply replay hashes bodies with it too.
 */
export const sha256: (data: Uint8Array) => Buffer =
  typeof oneShotHash === 'function'
    ? (data) => oneShotHash('sha256', data, 'buffer')
    : (data) => createHash('sha256').update(data).digest();

/** The preimage written into one buffer (the header's length, the header, each input's bytes). */
function oneShot(
  request: ValidatedRequest,
  header: string,
  headerBytes: number,
  total: number,
): Buffer {
  const pre = Buffer.allocUnsafe(total);
  pre.writeUInt32LE(headerBytes, 0);
  let at = 4 + pre.write(header, 4, 'utf8');
  for (const input of request.inputs) {
    const n = input.byteLength;
    const target = pre.subarray(at, at + n);
    if (input.bytes !== undefined) target.set(input.bytes);
    else input.write(target);
    at += n;
  }
  return sha256(pre);
}

/** The same preimage fed to one Hash piece by piece. */
function streamed(request: ValidatedRequest, header: string, headerBytes: number): Buffer {
  const sha = createHash('sha256');
  new DataView(headLength.buffer).setUint32(0, headerBytes, true);
  sha.update(headLength);
  sha.update(header, 'utf8');
  for (const input of request.inputs) {
    if (input.bytes !== undefined) {
      sha.update(input.bytes);
      continue;
    }
    const n = input.byteLength;
    let target: Uint8Array;
    if (n <= SCRATCH_BYTES) {
      scratch ??= new Uint8Array(SCRATCH_BYTES);
      target = scratch.subarray(0, n);
    } else {
      target = new Uint8Array(n);
    }
    input.write(target);
    sha.update(target);
  }
  return sha.digest();
}

/** True when two keys are the same request (same digest). */
export function sameKey(a: CacheKey, b: CacheKey): boolean {
  return a.hash === b.hash;
}
