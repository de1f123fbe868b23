// One served model version: its frozen config and signature, its statistics reporter, and the
// scheduler in front of its instances. Created by the model loader, owned by the registry.

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
  /** Stops the scheduler (drain) and then the instances. */
  unload(): Promise<void>;
}

/** Triton's model states, as the repository index reports them. */
export type ModelState = 'LOADING' | 'READY' | 'UNAVAILABLE' | 'UNLOADING';

export interface ModelEntry {
  readonly name: string;
  state: ModelState;
  /** Why the model is UNAVAILABLE; '' otherwise. */
  reason: string;
  /** The completed config, when the config pipeline got that far. */
  config: ModelConfig | undefined;
  /** Ready versions, ascending. */
  readonly versions: Map<number, ModelVersion>;
}
