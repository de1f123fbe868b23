// The execution providers one instance registers, in priority order, from the model's
// OrtParameters: GPU instances get the GPU providers on their device, every instance the CPU ones,
// CPU last. Which accelerators exist and what their parameters mean is config/accelerators.ts.

import type { InstanceKind } from '../../config/model-config.js';
import type { OrtParameters } from './config/ort-parameters.js';
import type { ExecutionProviderPlan } from './session-plan.js';

export function executionProvidersFor(
  ort: Pick<OrtParameters, 'gpuProviders' | 'cpuProviders'>,
  instance: { readonly kind: InstanceKind; readonly deviceId?: number },
): ExecutionProviderPlan[] {
  const onDevice =
    instance.kind === 'KIND_GPU'
      ? ort.gpuProviders.map((p) => ({ ...p, deviceId: instance.deviceId ?? 0 }))
      : [];
  return [...onDevice, ...ort.cpuProviders];
}

/**
 * onnxruntime-node 1.30 reads only `deviceId` from a CUDA or TensorRT provider entry (its
 * session_options_helper.cc creates default provider options and sets device_id), so any other
 * option is accepted here but cannot reach ORT. One line per provider that loses options.
 */
export function unappliedOptionWarnings(providers: readonly ExecutionProviderPlan[]): string[] {
  const lines: string[] = [];
  for (const p of providers) {
    const keys = Object.keys(p.options);
    // The binding reads WebGPU's own options (session-options.ts); CPU takes none.
    if (p.name !== 'cpu' && p.name !== 'webgpu' && keys.length > 0) {
      lines.push(
        `execution provider "${p.name}": onnxruntime-node applies only the device id; ` +
          `options not applied: ${keys.sort().join(', ')}`,
      );
    }
  }
  return lines;
}
