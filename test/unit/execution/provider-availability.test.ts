// Provider availability: what the installed binding reports, and the load-time check built on it.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ExecutionProviderName } from '../../../src/execution/onnxruntime/config/accelerators.js';
import { InferenceServerError } from '../../../src/errors.js';
import {
  assertProvidersInstalled,
  bindingDirectory,
  providerInventory,
} from '../../../src/execution/onnxruntime/provider-availability.js';
import type { ProviderInventory } from '../../../src/execution/onnxruntime/provider-availability.js';
import type { OrtSessionPlan } from '../../../src/execution/onnxruntime/session-plan.js';

const planWith = (...names: ExecutionProviderName[]): OrtSessionPlan => ({
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  enableCpuMemArena: true,
  enableMemPattern: true,
  configEntries: {},
  executionProviders: names.map((name) => ({ name, options: {} })),
});

const inventory: ProviderInventory = {
  supported: new Set(['cpu', 'cuda', 'tensorrt']),
  installed: new Set(['cpu']),
};

void describe('providerInventory (the installed onnxruntime-node)', () => {
  void it('always has the CPU provider', () => {
    assert.ok(providerInventory().installed.has('cpu'));
  });

  void it('counts CUDA as installed exactly when its provider library is next to the binding', () => {
    const lib =
      process.platform === 'win32'
        ? 'onnxruntime_providers_cuda.dll'
        : 'libonnxruntime_providers_cuda.so';
    const present = existsSync(path.join(bindingDirectory(), lib));
    assert.ok(existsSync(bindingDirectory()), 'the binding directory exists');
    assert.equal(providerInventory().installed.has('cuda'), present);
  });
});

void describe('assertProvidersInstalled', () => {
  void it('accepts a CPU-only plan', () => {
    assertProvidersInstalled(planWith('cpu'), inventory);
  });

  void it('a supported but not installed provider: PROVIDER_UNAVAILABLE with the install command', () => {
    assert.throws(
      () => assertProvidersInstalled(planWith('cuda', 'cpu'), inventory),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'PROVIDER_UNAVAILABLE' &&
        e.message ===
          'execution provider "cuda" is not installed in onnxruntime-node; on a GPU host either ' +
            'install it (npm pkg set allowScripts.onnxruntime-node=true --json && ' +
            'ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci --ignore-scripts=false), or use the WebGPU ' +
            'provider the npm package ships: gpu_execution_accelerator [ { name: "webgpu" } ] in the model\'s ' +
            'optimization.execution_accelerators (needs the Vulkan loader, libvulkan1)',
    );
  });

  void it('a provider the binding was not built with: PROVIDER_UNAVAILABLE listing what it has', () => {
    assert.throws(
      () => assertProvidersInstalled(planWith('openvino', 'cpu'), inventory),
      (e: unknown) =>
        e instanceof InferenceServerError &&
        e.code === 'PROVIDER_UNAVAILABLE' &&
        /"openvino" is not supported .* \(it supports: cpu, cuda, tensorrt\)/.test(e.message),
    );
  });
});
