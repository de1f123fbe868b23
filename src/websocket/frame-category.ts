// Which restricted-API category (--http-restricted-api) each kind of client frame belongs to. A new
// frame kind does not compile until it is given one here.

import type { RestrictedCategory } from '../protocol/restricted-features.js';
import type { ClientFrame } from './ws-frames.js';

export const FRAME_CATEGORY = Object.freeze({
  infer: 'inference',
  // Cancelling is part of inferring: a socket refused inference has nothing in flight to cancel.
  cancel: 'inference',
  repository_index: 'model-repository',
  model_load: 'model-repository',
  model_unload: 'model-repository',
  // The same category guards HTTP's /v2/systemsharedmemory routes and gRPC's SystemSharedMemory*.
  shm_register: 'shared-memory',
  shm_unregister: 'shared-memory',
  shm_status: 'shared-memory',
} as const satisfies Record<ClientFrame['kind'], RestrictedCategory>);
