// The msgpack shared-memory frames (type shm_register, shm_unregister, shm_status): a decoded frame
// map -> SharedMemoryFrame, carrying the same SharedMemoryCall the HTTP routes decode from
// `/v2/systemsharedmemory/...`, with the same member names (`key`, `offset`, `byte_size`).

import { fail } from '../errors.js';
import { own } from '../protocol/parameters.js';
import type { SharedMemoryCall } from '../shared-memory/shm-calls.js';
import { kindOf, requireString } from './frame-fields.js';
import type { FrameId } from './frame-id.js';
import {
  SHARED_MEMORY_FRAME_TYPES,
  type SharedMemoryFrame,
  type SharedMemoryFrameType,
} from './ws-frames.js';

type FrameMap = Record<string, unknown>;

export function isSharedMemoryFrameType(type: unknown): type is SharedMemoryFrameType {
  return (SHARED_MEMORY_FRAME_TYPES as readonly unknown[]).includes(type);
}

export function sharedMemoryFrame(
  doc: FrameMap,
  type: SharedMemoryFrameType,
  id: FrameId,
): SharedMemoryFrame {
  return { kind: type, id, call: callOf(doc, type) };
}

function callOf(doc: FrameMap, type: SharedMemoryFrameType): SharedMemoryCall {
  switch (type) {
    case 'shm_register': {
      const name = requireString(own(doc, 'name'), "shm_register frame 'name'");
      const key = requireString(own(doc, 'key'), "shm_register frame 'key'");
      return {
        op: 'register',
        name,
        key,
        offset: uint(doc, 'offset', 0),
        byteSize: uint(doc, 'byte_size'),
      };
    }
    case 'shm_unregister':
      return { op: 'unregister', ...optionalName(doc, type) };
    case 'shm_status':
      return { op: 'status', ...optionalName(doc, type) };
  }
}

/** Absent, nil or '' : every region (as HTTP's route without `region/{name}`). */
function optionalName(doc: FrameMap, type: SharedMemoryFrameType): { name?: string } {
  const v = own(doc, 'name');
  if (v === undefined || v === null || v === '') return {};
  return { name: requireString(v, `${type} frame 'name'`) };
}

function uint(doc: FrameMap, member: string, fallback?: number): number {
  const v = own(doc, member);
  if ((v === undefined || v === null) && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw fail(
      'BAD_REQUEST',
      `shm_register frame '${member}' must be an unsigned integer, got ${kindOf(v)}`,
    );
  }
  return v;
}
