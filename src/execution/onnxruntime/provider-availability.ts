// Which execution providers the installed onnxruntime-node can actually create, checked in the main
// thread before any worker starts, so that a model asking for CUDA on a CPU-only install fails to
// load with an instruction instead of an ORT "Failed to load shared library" from inside a worker.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { listSupportedBackends } from 'onnxruntime-node';
import { EXECUTION_PROVIDERS, providerForOrtName } from './config/accelerators.js';
import { fail } from '../../errors.js';
import type { OrtSessionPlan } from './session-plan.js';

function libraryFile(stem: string): string {
  switch (process.platform) {
    case 'win32':
      return `onnxruntime_${stem}.dll`;
    case 'darwin':
      return `libonnxruntime_${stem}.dylib`;
    default:
      return `libonnxruntime_${stem}.so`;
  }
}

/** The folder the binding loads provider libraries from (next to onnxruntime_binding.node). */
export function bindingDirectory(): string {
  const entry = createRequire(import.meta.url).resolve('onnxruntime-node');
  return path.join(path.dirname(entry), '..', 'bin', 'napi-v6', process.platform, process.arch);
}

/** Sets of onnxruntime-node's provider names (`ortName` in config/accelerators.ts). */
export interface ProviderInventory {
  /** Providers this binding was built with (listSupportedBackends). */
  readonly supported: ReadonlySet<string>;
  /** The subset whose libraries are present, so a session can be created with them. */
  readonly installed: ReadonlySet<string>;
}

let cached: ProviderInventory | undefined;

/**
 * Whether a provider the binding was built with can be created: bundled in the binding, or its
 * libraries (not in the npm package, too large for the registry; the install script fetches them
 * only when asked, ONNXRUNTIME_NODE_INSTALL=cuda12) are in the binding's folder.
 */
function isPresent(backend: { name: string; bundled: boolean }, dir: string): boolean {
  if (backend.bundled) return true;
  const provider = providerForOrtName(backend.name);
  const libs = provider === undefined ? null : EXECUTION_PROVIDERS[provider].libraries;
  return libs !== null && libs.every((l) => existsSync(path.join(dir, libraryFile(l))));
}

/** Inspects the installed binding once per process. */
export function providerInventory(): ProviderInventory {
  if (cached !== undefined) return cached;
  const dir = bindingDirectory();
  // The CPU provider is part of every build, whatever the binding lists.
  const supported = new Set<string>([EXECUTION_PROVIDERS.cpu.ortName]);
  const installed = new Set<string>([EXECUTION_PROVIDERS.cpu.ortName]);
  for (const backend of listSupportedBackends()) {
    supported.add(backend.name);
    if (isPresent(backend, dir)) installed.add(backend.name);
  }
  cached = Object.freeze({ supported, installed });
  return cached;
}

/**
 * Throws PROVIDER_UNAVAILABLE for the first provider in the plan the binding cannot create. The
 * message names the provider and how to get it, never a file path.
 */
export function assertProvidersInstalled(
  plan: OrtSessionPlan,
  inventory: ProviderInventory = providerInventory(),
): void {
  for (const ep of plan.executionProviders) {
    const ortName = EXECUTION_PROVIDERS[ep.name].ortName;
    if (inventory.installed.has(ortName)) continue;
    if (inventory.supported.has(ortName)) {
      throw fail(
        'PROVIDER_UNAVAILABLE',
        `execution provider "${ep.name}" is not installed in onnxruntime-node; on a GPU host ` +
          `either install it (npm pkg set allowScripts.onnxruntime-node=true --json && ` +
          `ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci --ignore-scripts=false), or use the WebGPU ` +
          `provider the npm package ships: gpu_execution_accelerator [ { name: "webgpu" } ] in the model's ` +
          `optimization.execution_accelerators (needs the Vulkan loader, libvulkan1)`,
      );
    }
    throw fail(
      'PROVIDER_UNAVAILABLE',
      `execution provider "${ep.name}" is not supported by onnxruntime-node on ` +
        `${process.platform}/${process.arch} (it supports: ${[...inventory.supported].join(', ')})`,
    );
  }
}
