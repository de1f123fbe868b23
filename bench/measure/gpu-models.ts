// The NVIDIA GPUs on this machine by model name, as the driver lists them under /proc (no
// nvidia-smi needed), for results whose figures depend on the GPU.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const NVIDIA_GPUS = '/proc/driver/nvidia/gpus';

/** One entry per GPU, in bus order (`NVIDIA H200`); empty without the NVIDIA driver. */
export function nvidiaGpuModels(root: string = NVIDIA_GPUS): string[] {
  let buses: string[];
  try {
    buses = readdirSync(root).sort();
  } catch {
    return [];
  }
  return buses.map((bus) => {
    try {
      const info = readFileSync(path.join(root, bus, 'information'), 'utf8');
      return /^Model:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? `GPU ${bus}`;
    } catch {
      return `GPU ${bus}`;
    }
  });
}
