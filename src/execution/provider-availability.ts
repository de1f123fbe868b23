// Which execution providers the installed onnxruntime-node can actually create, checked in the main
// thread before any worker starts, so that a model asking for CUDA on a CPU-only install fails to
// load with an instruction instead of an ORT "Failed to load shared library" from inside a worker.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { listSupportedBackends } from 'onnxruntime-node';
import { fail } from '../errors.js';
import type { OrtSessionPlan } from './session-plan.js';

/**
 * Provider libraries that are not in the npm package (too large for the registry) and are fetched
 * by its install script only when asked (ONNXRUNTIME_NODE_INSTALL=cuda12). TensorRT also needs the
 * CUDA library because infernode always registers CUDA as TensorRT's fallback.
 */
const PROVIDER_LIBRARIES: Readonly<Record<string, readonly string[]>> = {
  cuda: ['providers_shared', 'providers_cuda'],
  tensorrt: ['providers_shared', 'providers_cuda', 'providers_tensorrt'],
};

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

export interface ProviderInventory {
  /** Providers this binding was built with (listSupportedBackends). */
  readonly supported: ReadonlySet<string>;
  /** The subset whose libraries are present, so a session can be created with them. */
  readonly installed: ReadonlySet<string>;
}

let cached: ProviderInventory | undefined;

/** Inspects the installed binding once per process. */
export function providerInventory(): ProviderInventory {
  if (cached !== undefined) return cached;
  const dir = bindingDirectory();
  const supported = new Set<string>(['cpu']);
  const installed = new Set<string>(['cpu']);
  for (const backend of listSupportedBackends()) {
    supported.add(backend.name);
    const libs = PROVIDER_LIBRARIES[backend.name];
    const present =
      backend.bundled ||
      (libs !== undefined && libs.every((l) => existsSync(path.join(dir, libraryFile(l)))));
    if (present) installed.add(backend.name);
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
    if (inventory.installed.has(ep.name)) continue;
    if (inventory.supported.has(ep.name)) {
      throw fail(
        'PROVIDER_UNAVAILABLE',
        `execution provider "${ep.name}" is not installed in onnxruntime-node; on a GPU host ` +
          `install it with ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci`,
      );
    }
    throw fail(
      'PROVIDER_UNAVAILABLE',
      `execution provider "${ep.name}" is not supported by onnxruntime-node on ` +
        `${process.platform}/${process.arch} (it supports: ${[...inventory.supported].join(', ')})`,
    );
  }
}
