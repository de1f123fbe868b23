// The handlers of the shared-memory RPCs (SystemSharedMemory*, CudaSharedMemory*): each turns its
// proto-loader message into a SharedMemoryCall and the data plane's answer into the response
// message (status: a map from region name to its row; uint64 fields as decimal strings).

import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { DataPlane } from '../dataplane/data-plane-api.js';
import { fail } from '../errors.js';
import type { SharedMemoryAnswer } from '../shared-memory/shm-calls.js';

type Handler = (call: ServerUnaryCall<any, unknown>) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

interface NamedRequest {
  readonly name: string;
}

interface RegisterRequest extends NamedRequest {
  readonly key: string;
  /** uint64 as a decimal string (grpc-protos.ts: longs: String). */
  readonly offset: string;
  readonly byte_size: string;
}

export function sharedMemoryHandlers(plane: DataPlane): Record<string, Handler> {
  const named = (call: ServerUnaryCall<unknown, unknown>): string | undefined => {
    const name = (call.request as NamedRequest).name;
    return name === '' ? undefined : name;
  };
  const withName = (name: string | undefined) => (name !== undefined ? { name } : {});
  return {
    SystemSharedMemoryStatus: (call) => ({
      regions: byName(plane.sharedMemory({ op: 'status', ...withName(named(call)) })),
    }),
    SystemSharedMemoryRegister: (call) => {
      const r = call.request as RegisterRequest;
      plane.sharedMemory({
        op: 'register',
        name: r.name,
        key: r.key,
        offset: safe(r.offset, 'offset'),
        byteSize: safe(r.byte_size, 'byte_size'),
      });
      return {};
    },
    SystemSharedMemoryUnregister: (call) => {
      plane.sharedMemory({ op: 'unregister', ...withName(named(call)) });
      return {};
    },
    CudaSharedMemoryStatus: (call) => ({
      regions: byName(plane.sharedMemory({ op: 'cuda-status', ...withName(named(call)) })),
    }),
    CudaSharedMemoryRegister: (call) => {
      plane.sharedMemory({ op: 'cuda-register', name: (call.request as NamedRequest).name });
      return {};
    },
    CudaSharedMemoryUnregister: (call) => {
      plane.sharedMemory({ op: 'cuda-unregister', ...withName(named(call)) });
      return {};
    },
  };
}

function byName(rows: SharedMemoryAnswer): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (const row of rows) map[row.name] = row;
  return map;
}

/** A uint64 field as a number; past 2^53 no region can be that large or far. */
function safe(value: string, field: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw fail('BAD_REQUEST', `shared memory register request: '${field}' ${value} is too large`);
  }
  return n;
}
