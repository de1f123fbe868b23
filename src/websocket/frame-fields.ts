// Field checks shared by the msgpack and FlatBuffers frame decoders: the model, version and tensor
// lists of a request frame (the id has its own module, frame-id.ts), each refused with a message
// naming what was expected and what arrived. Only envelope shape is checked here; model-specific
// checks stay in validate-request.

import { Buffer } from 'node:buffer';
import { fail } from '../errors.js';
import {
  MAX_TENSORS,
  type Parameters,
  type SharedMemoryData,
} from '../protocol/inference-request.js';
import { sharedMemoryParameters } from '../protocol/shm-parameters.js';
import { assertValidModelName } from '../repository/model-name.js';

/** How a value arrived, for messages ("got a bin of 4 bytes"). Never prints the value itself. */
export function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'nil';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v instanceof Uint8Array) return `a bin of ${v.byteLength} bytes`;
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'bigint') return `the integer ${v}`;
  return `${typeof v === 'number' ? 'the number' : 'the boolean'} ${String(v)}`;
}

export function requireModel(v: unknown): string {
  if (typeof v !== 'string') {
    throw fail('BAD_REQUEST', `frame 'model' must be a string, got ${kindOf(v)}`);
  }
  assertValidModelName(v);
  return v;
}

/** Absent, a string of digits, or a non-negative integer (carried as its digits). */
export function optionalVersion(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^[0-9]{1,18}$/.test(v)) return v;
  throw fail(
    'BAD_VERSION',
    `frame 'version' must be a number or a string of digits, got ${kindOf(v)}`,
  );
}

export function requireString(v: unknown, where: string): string {
  if (typeof v !== 'string')
    throw fail('BAD_REQUEST', `${where} must be a string, got ${kindOf(v)}`);
  return v;
}

/** Checks a tensor list's length against the same cap the HTTP codec applies. */
export function checkTensorCount(n: number, what: 'inputs' | 'outputs'): void {
  if (n > MAX_TENSORS) {
    throw fail('TOO_MANY_TENSORS', `a request may name at most ${MAX_TENSORS} ${what}, got ${n}`);
  }
}

/**
 * The bytes a request keeps of one tensor payload. Volatile frame memory (uWS) is copied now, once,
 * into a buffer of exactly this size; validation later copies it into shared memory. A stable frame
 * (ws) is viewed, not copied.
 */
export function keepPayload(bytes: Uint8Array, volatile: boolean): Uint8Array {
  if (!volatile) return bytes;
  // allocUnsafeSlow: every byte is overwritten at once, and an unpooled buffer does not pin a
  // shared 8 KiB slab for as long as the request lives.
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  copy.set(bytes);
  return new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength);
}

/**
 * An input's region (Triton's shared-memory extension) when its parameters name one, read by the
 * same rules as HTTP and gRPC; such an input carries no data of its own (as gRPC's contents).
 */
export function inputRegion(
  name: string,
  parameters: Parameters,
  hasData: boolean,
): SharedMemoryData | undefined {
  const region = sharedMemoryParameters(name, parameters);
  if (region !== undefined && hasData) {
    throw fail(
      'BAD_REQUEST',
      `input '${name}' names shared-memory region '${region.region.slice(0, 64)}' and also ` +
        'carries data: send one or the other',
    );
  }
  return region;
}
