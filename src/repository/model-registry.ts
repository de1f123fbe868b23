// The registry of models the server knows: one entry per model ever loaded (or tried), with its
// state and its serving versions. Lookup resolves a (name, version) the way Triton does: no version
// means the highest serving version that is not the model's shadow (config/shadow-policy.ts). The model manager adds and removes entries; each entry's state
// is written by its lifecycle (model-lifecycle.ts), which the manager's registry holds.

import { shadowPolicy } from '../config/shadow-policy.js';
import { fail } from '../errors.js';
import type { ModelEntry, ModelVersion } from './model-version.js';

export class ModelRegistry<E extends ModelEntry = ModelEntry> {
  private readonly entries = new Map<string, E>();

  add(entry: E): void {
    if (this.entries.has(entry.name)) {
      throw new Error(`model '${entry.name}' registered twice`); // a manager bug, not user input
    }
    this.entries.set(entry.name, entry);
  }

  /** Forgets a model (poll mode, after its directory left the repository and it unloaded). */
  remove(name: string): void {
    this.entries.delete(name);
  }

  all(): E[] {
    return [...this.entries.values()];
  }

  entry(name: string): E | undefined {
    return this.entries.get(name);
  }

  /**
   * The version that serves `name` / `version`. Throws MODEL_NOT_FOUND for an unknown model or
   * version, MODEL_NOT_READY when the model exists but no version serves (unloaded, failed).
   */
  resolve(name: string, version: string | undefined): ModelVersion {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${name}' is not found`);
    }
    if (version === undefined || version === '') {
      let best: ModelVersion | undefined;
      // A shadow version is loaded to be compared, never served to a client that names no version.
      const shadow =
        entry.config === undefined || entry.versions.size === 0
          ? undefined
          : shadowPolicy(entry.config)?.version;
      for (const v of entry.versions.values())
        if (v.version !== shadow && (best === undefined || v.version > best.version)) best = v;
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

  /**
   * Strict readiness: every model the server is meant to serve has a serving version, each with all
   * of its instances up (not while a lost worker is being replaced). A model unloaded on request is
   * not counted; one whose load failed is.
   */
  allReady(): boolean {
    for (const e of this.entries.values()) {
      if (!e.wanted) continue;
      if (e.state !== 'READY' || ![...e.versions.values()].every((v) => v.ready())) return false;
    }
    return true;
  }
}
