// The registry of models the server knows: one entry per repository model directory, with its state
// and its ready versions. Lookup resolves a (name, version) the way Triton does: no version means
// the highest ready version.

import { fail } from '../errors.js';
import type { ModelEntry, ModelVersion } from './model-version.js';

export class ModelRegistry {
  private readonly entries = new Map<string, ModelEntry>();

  add(entry: ModelEntry): void {
    if (this.entries.has(entry.name)) {
      throw new Error(`model '${entry.name}' registered twice`); // a loader bug, not user input
    }
    this.entries.set(entry.name, entry);
  }

  all(): ModelEntry[] {
    return [...this.entries.values()];
  }

  entry(name: string): ModelEntry | undefined {
    return this.entries.get(name);
  }

  /**
   * The version that serves `name` / `version`. Throws MODEL_NOT_FOUND for an unknown model or
   * version, MODEL_NOT_READY when the model exists but has no ready version.
   */
  resolve(name: string, version: string | undefined): ModelVersion {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${name}' is not found`);
    }
    if (version === undefined || version === '') {
      let best: ModelVersion | undefined;
      for (const v of entry.versions.values())
        if (best === undefined || v.version > best.version) best = v;
      if (best === undefined) {
        throw fail(
          'MODEL_NOT_READY',
          `Request for unknown model: '${name}' has no available versions` +
            (entry.reason === '' ? '' : `: ${entry.reason}`),
        );
      }
      return best;
    }
    const v = entry.versions.get(Number(version));
    if (v === undefined) {
      throw fail(
        'MODEL_NOT_FOUND',
        `Request for unknown model: '${name}' version ${version} is not found`,
      );
    }
    return v;
  }

  /** Ready means every model the repository holds has a ready version (strict readiness). */
  allReady(): boolean {
    for (const e of this.entries.values()) if (e.state !== 'READY') return false;
    return true;
  }
}
