// The client memory flags: the budget of bytes held for clients, and the system shared-memory
// regions clients may register.

import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const MEMORY_FLAGS = {
  'client-memory-budget': {
    kind: 'uint',
    help: 'Bytes held for clients (unread answers, queued requests, windows of paused streams, HTTP request bodies being read) over all gRPC streams, WebSockets and HTTP requests; over it a stream gets RESOURCE_EXHAUSTED, a socket closes with 1013, an HTTP request gets 503; 0: no limit (167772160)',
  },
  'allow-client-shm': {
    kind: 'bool',
    help: "Let clients register system shared-memory regions (/v2/systemsharedmemory, gRPC SystemSharedMemory*) and name them in inference requests, as Triton's flag (false)",
  },
  'client-shm-max-regions': {
    kind: 'uint',
    help: 'Shared-memory regions registered at once; more are refused (1024)',
  },
  'client-shm-max-bytes': {
    kind: 'uint',
    help: 'Sum of the byte sizes of the registered shared-memory regions; more are refused (17179869184)',
  },
} as const satisfies FlagTable;

type MemoryOptions = Pick<
  ServerOptions,
  'clientMemoryBudget' | 'allowClientShm' | 'clientShmMaxRegions' | 'clientShmMaxBytes'
>;

export function memoryOptions(read: FlagReader<keyof typeof MEMORY_FLAGS>): MemoryOptions {
  return {
    clientMemoryBudget: read.uint('client-memory-budget', DEFAULT_OPTIONS.clientMemoryBudget),
    allowClientShm: read.bool('allow-client-shm', DEFAULT_OPTIONS.allowClientShm),
    clientShmMaxRegions: read.uint('client-shm-max-regions', DEFAULT_OPTIONS.clientShmMaxRegions),
    clientShmMaxBytes: read.uint('client-shm-max-bytes', DEFAULT_OPTIONS.clientShmMaxBytes),
  };
}
