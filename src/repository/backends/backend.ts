// The backend seam: what differs between the kinds of model the server runs (ONNX Runtime,
// JavaScript, ensemble), behind one interface, one folder per backend. registry.ts maps a config's
// backend (or, for an ensemble, its platform) to one `Backend`, once, when the model is configured;
// from then on the load steps ask the backend and never look at the config's backend fields again.
//
// A backend decides: its rules in the config pipeline (`config`: the backend/platform pairs it serves,
// its model files and instance defaults, and the validation rules of its own), whether a version
// directory holds a model file, what it reads of the config
// beyond the common fields (ORT: its parameters, graph level and accelerators; JavaScript: its
// timeouts), whether its instances hold ONNX Runtime sessions (the thread budget divides their
// threads), and how a version starts (its
// instances' workers with its own worker entry, run hand-off and timeouts, and the check of the
// model it opened against the config; or, for an ensemble, no instances at all). The worker-side
// code of a backend stays below this layer, in execution/ and workers/, where workers can import it.

import type { BackendConfigRules } from '../../config/backend-rules.js';
import type { OrtLogSeverity } from '../../execution/onnxruntime/ort-log-level.js';
import type { BackendConfig, BackendSettingKeys } from '../../config/backend-config.js';
import type { LoadedModelConfig } from '../../config/load-model-config.js';
import type { ModelConfig } from '../../config/model-config.js';
import type { WarmupRun } from '../../execution/messages.js';
import type {
  BackendThreadConfig,
  ModelThreadDemand,
  ThreadBudget,
} from '../../execution/thread-budget.js';
import type { Logger } from '../../logger.js';
import type { MetricsCatalog } from '../../metrics/metrics-catalog.js';
import type { ConfiguredModel } from '../configure-model.js';
import type { ModelVersion } from '../model-version.js';
import type { ServerHost } from '../server-host.js';
import type { RateLimiter } from '../../scheduler/rate-limit/rate-limiter.js';

/** What starting a version may use of the server: its options and the host of model calls. */
export interface BackendDeps {
  /** 'auto' probes ORT; false forces the worker copy path. */
  readonly sabTensors: boolean | 'auto';
  /** False: ORT workers take every run as a piscina task instead of over the doorbell. */
  readonly doorbell: boolean;
  /** ONNX Runtime's log severity for sessions created now (absent: ORT's default, warning). */
  readonly ortLogSeverity?: () => OrtLogSeverity;
  /** Cap on one request's shared-memory input block. */
  readonly maxInputBytes: number;
  readonly catalog: MetricsCatalog;
  readonly logger: Logger;
  /** What ensembles' steps and JavaScript models' BLS calls see of the server. */
  readonly host: ServerHost;
  /** The server's rate limiter (--rate-limit=execution_count); absent when off. */
  readonly rateLimiter?: RateLimiter;
}

export interface Backend {
  /** Its registry key: the config's `backend`, or its `platform` when it names no backend. */
  readonly name: string;
  /**
   * Its part in the config pipeline, which the registry hands to it (config/backend-rules.ts): the
   * backend/platform pairs it serves and the rules its configs meet beyond the common ones.
   */
  readonly config: BackendConfigRules;
  /**
   * A version directory holds the file `default_model_filename` names (ONNX, JavaScript); an
   * ensemble's holds none, its steps name other models.
   */
  readonly hasModelFile: boolean;
  /** Its instances hold ONNX Runtime sessions, whose intra- and inter-op threads the budget divides. */
  readonly ortSessions: boolean;
  /** Its models take BYTES elements holding NUL bytes as sent (ModelSignature.bytesMayHoldNul). */
  readonly bytesMayHoldNul: boolean;
  /**
   * The models a version calls as part of serving (an ensemble's steps), once each: they load
   * with it and must serve before it starts. Not a JavaScript model's BLS calls, which may name
   * any model at run time.
   */
  dependencies(config: ModelConfig): readonly string[];
  /**
   * The server's `--backend-config` settings it reads (global ones, or under its name), and how:
   * `read` checks every occurrence that applies to it (CONFIG_INVALID quoting the flag), once, when
   * the server starts, and returns what the thread budget plans with when it has shared thread pools
   * (ONNX Runtime's global pools); absent: it reads none.
   */
  readonly settings?: BackendSettingKeys & {
    readonly read: (config: BackendConfig) => BackendThreadConfig | undefined;
  };
  /**
   * Reads this backend's own settings from the validated config (ORT's parameters, a JavaScript
   * model's timeouts; CONFIG_INVALID or UNSUPPORTED naming what is wrong) and binds them into the
   * start of the model's versions. Called once, when the model is configured; the result is kept
   * on the ConfiguredModel, so no backend's settings ride there as optional fields.
   */
  bind(loaded: LoadedModelConfig): BoundBackend;
}

/** A backend with the settings it read from one model's config. */
export interface BoundBackend {
  /** Starts one of the model's versions with those settings. */
  readonly start: VersionStart;
  /**
   * What each version asks of the thread budget. Only a backend whose instances hold ORT sessions
   * (`ortSessions`) asks for threads; the others' parameters are never read (NO_THREAD_PARAMETERS).
   */
  readonly threadParameters: ModelThreadDemand['params'];
  /** Things to log at WARN from reading them (unknown or unapplied parameters). */
  readonly warnings: readonly string[];
}

/** The thread parameters of a backend whose instances open no ORT session: the budget reads none. */
export const NO_THREAD_PARAMETERS: ModelThreadDemand['params'] = Object.freeze({
  intraOpThreadCount: 0,
  interOpThreadCount: 0,
  executionMode: 'sequential',
});

/**
 * Starts one version of `configured`: its instances and scheduler, serving as soon as the registry
 * holds the result. Fails the load on any error.
 */
export type VersionStart = (
  configured: ConfiguredModel,
  version: number,
  budget: ThreadBudget,
  warmup: readonly WarmupRun[],
  deps: BackendDeps,
) => Promise<ModelVersion>;
