// The shared-memory extension's management calls as data: what the HTTP routes and the gRPC
// handlers decode, what crosses from a front-end thread to the main thread, and the one function
// that answers them against the registry. System memory is served; CUDA memory answers as a Triton
// built without GPU support does (status: no regions; register: an error with the reason).

import { fail } from '../errors.js';
import { printable } from './shm-key.js';
import type { RegionRegistry } from './region-registry.js';
import type { RegionStatus } from './shm-region.js';

export type SharedMemoryCall =
  | {
      readonly op: 'register';
      readonly name: string;
      readonly key: string;
      readonly offset: number;
      readonly byteSize: number;
    }
  /** `name` absent: every region. */
  | { readonly op: 'unregister'; readonly name?: string }
  | { readonly op: 'status'; readonly name?: string }
  | { readonly op: 'cuda-register'; readonly name: string }
  | { readonly op: 'cuda-unregister'; readonly name?: string }
  | { readonly op: 'cuda-status'; readonly name?: string };

/** A CUDA region's status row (never produced: no region can be registered here). */
export interface CudaRegionStatus {
  readonly name: string;
  readonly device_id: number;
  readonly byte_size: number;
}

/** Status calls answer their rows; the others answer an empty list. */
export type SharedMemoryAnswer = readonly RegionStatus[] | readonly CudaRegionStatus[];

/**
 * Answers `call`. `registry` undefined: --allow-client-shm=false. Register and unregister are then
 * refused with the message Triton gives (since 26.04, when the flag appeared); status still
 * answers, with no regions, as Triton's does (qa/L0_shared_memory
 * test_client_shm_disabled_by_default).
 */
export function answerSharedMemory(
  registry: RegionRegistry | undefined,
  call: SharedMemoryCall,
): SharedMemoryAnswer {
  if (registry === undefined) return answerDisabled(call);
  switch (call.op) {
    case 'register':
      registry.register(call.name, call.key, call.offset, call.byteSize);
      return [];
    case 'unregister':
      if (call.name === undefined) registry.unregisterAll();
      else registry.unregister(call.name);
      return [];
    case 'status':
      return registry.status(call.name);
    case 'cuda-register':
      throw fail(
        'SHM_CUDA_UNSUPPORTED',
        `failed to register CUDA shared memory region: '${printable(call.name)}', ` +
          'GPUs not supported',
      );
    case 'cuda-unregister':
      return [];
    case 'cuda-status':
      return cudaStatus(call.name);
  }
}

/** No CUDA region can be registered here: every region named is unknown. */
function cudaStatus(name: string | undefined): SharedMemoryAnswer {
  if (name === undefined || name === '') return [];
  throw fail('SHM_NOT_FOUND', `Unable to find cuda shared memory region: '${printable(name)}'`);
}

function answerDisabled(call: SharedMemoryCall): SharedMemoryAnswer {
  switch (call.op) {
    case 'status':
      if (call.name === undefined || call.name === '') return [];
      throw fail(
        'SHM_NOT_FOUND',
        `Unable to find system shared memory region: '${printable(call.name)}'`,
      );
    case 'cuda-status':
      return cudaStatus(call.name);
    case 'register':
    case 'unregister':
    case 'cuda-register':
    case 'cuda-unregister':
      throw fail(
        'SHM_DISABLED',
        "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.",
      );
  }
}
