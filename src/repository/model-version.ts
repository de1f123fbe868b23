// One served model version (its frozen config and signature, its statistics reporter, the scheduler
// in front of its instances) and the read-only view of the registry's entry for a model: the
// versions serving now, and the states of versions that are loading, unloading or unavailable, as
// the repository index shows. model-lifecycle.ts owns and writes the entry.

import type { ModelConfig } from '../config/model-config.js';
import type { ModelSignature } from './model-signature.js';
import type { ModelReporter } from '../metrics/model-reporter.js';
import type { Scheduler } from '../scheduler/scheduler.js';

export interface ModelVersion {
  readonly name: string;
  readonly version: number;
  readonly config: ModelConfig;
  readonly signature: ModelSignature;
  readonly reporter: ModelReporter;
  readonly scheduler: Scheduler;
  /** False while an instance is being replaced after a worker died (or failed to come back). */
  ready(): boolean;
  /** Stops the scheduler (queued and running requests finish) and then the instances. */
  unload(): Promise<void>;
}

/** Triton's model states, as the repository index reports them. */
export type ModelState = 'LOADING' | 'READY' | 'UNAVAILABLE' | 'UNLOADING';

/** A version the index shows that is not serving: being loaded or unloaded, or unavailable. */
export interface VersionStatus {
  readonly state: ModelState;
  readonly reason: string;
}

/** The reason Triton gives for a model or version that was unloaded on request. */
export const UNLOADED = 'unloaded';

/**
 * What everyone but the lifecycle sees of a model (model-lifecycle.ts writes it): its state and
 * reason, its serving versions and the index rows of the others.
 */
export interface ModelEntry {
  readonly name: string;
  /** READY while any version serves; LOADING before the first load ends; UNLOADING; UNAVAILABLE. */
  readonly state: ModelState;
  /** Why the model is UNAVAILABLE, or why its last load failed while older versions serve. */
  readonly reason: string;
  /** The completed config of the serving versions (or of the last attempt, when none serves). */
  readonly config: ModelConfig | undefined;
  /**
   * The serving versions. A load or unload replaces the whole map in one assignment, so a request
   * resolves either the old set or the new one, never a mix.
   */
  readonly versions: ReadonlyMap<number, ModelVersion>;
  /** Index rows for versions that are not serving. A version both serving and here shows READY. */
  readonly statuses: ReadonlyMap<number, VersionStatus>;
  /**
   * The server is meant to serve this model: set by every load, cleared by an unload. Strict
   * readiness counts only wanted models, so an explicit unload does not make the server unready.
   */
  readonly wanted: boolean;
}
