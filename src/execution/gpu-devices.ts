// Which GPU ids this process can use, decided once at start-up. Only meaningful when a GPU
// execution provider is installed; otherwise the answer is "unknown" and a GPU instance fails at
// start with the provider's install hint (see provider-availability.ts) instead of a GPU id error.

import { readdirSync } from 'node:fs';
import {
  EXECUTION_PROVIDER_NAMES,
  EXECUTION_PROVIDERS,
} from './onnxruntime/config/accelerators.js';
import { providerInventory } from './onnxruntime/provider-availability.js';

/** The NVIDIA driver lists one directory per GPU here. */
const NVIDIA_GPUS = '/proc/driver/nvidia/gpus';

/** GPU ids 0..n-1, or undefined when no GPU provider is installed or the driver shows none. */
export function availableGpuIds(): number[] | undefined {
  const installed = providerInventory().installed;
  // Only a provider GPU instances get without naming it (CUDA) makes the GPUs count: WebGPU is
  // bundled everywhere but opt-in, so KIND_AUTO must not pick a GPU just because it is there.
  const gpuProvider = EXECUTION_PROVIDER_NAMES.some(
    (n) => EXECUTION_PROVIDERS[n].implicit && installed.has(EXECUTION_PROVIDERS[n].ortName),
  );
  if (!gpuProvider) return undefined;
  try {
    return readdirSync(NVIDIA_GPUS).map((_, i) => i);
  } catch {
    return [];
  }
}
