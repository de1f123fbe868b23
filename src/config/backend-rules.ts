// One backend's part in the config pipeline (load-model-config.ts), as data and hooks the common
// steps call at fixed points, so config/ holds only the rules common to every model and names no
// backend's own. Each backend defines its rules in its own folder (repository/backends/<name>/) and
// the registry (repository/backends/registry.ts) hands the list of them to the pipeline: a new
// backend is a new folder and one registry line, and config/ does not change.

import type { BackendConfig } from './backend-config.js';
import type { RawModelConfig } from './generated/model-config-schema.js';
import type { InstanceGroupConfig, ModelConfig, ModelTensorConfig } from './model-config.js';
import type { ReadModelIO } from './read-model-io.js';

/** What a backend's autocomplete may use of the model directory and the pipeline's options. */
export interface AutocompleteContext {
  /** The model directory's name. */
  readonly modelName: string;
  readonly modelDir: string;
  /**
   * `file` in the highest version directory that has it (or `<file>/model.onnx` when `file` is a
   * directory, an ONNX model with external data); undefined when none does.
   */
  modelFile(file: string): Promise<string | undefined>;
  /** The server's `--backend-config` settings (e.g. ONNX Runtime's default-max-batch-size). */
  readonly backendConfig: BackendConfig;
  /** The pipeline's model reader, when one was injected (tests). */
  readonly readModelIO?: ReadModelIO;
}

/** What a backend's autocomplete made of a raw config. */
export interface BackendAutocomplete {
  readonly config: RawModelConfig;
  /** Messages to log at WARN (e.g. "autofilled max_batch_size to 4 ..."). */
  readonly warnings: readonly string[];
  /** Checks the validated config against what it read (the opened model); run after validation. */
  readonly check?: (config: ModelConfig) => void;
}

export interface BackendConfigRules {
  /**
   * The config's `backend` it serves, or '' for one named by its platform alone (the ensemble).
   * With `platforms`, the pairs validateBackend accepts.
   */
  readonly backend: string;
  /** The `platform` values accepted with it ('' = none given). */
  readonly platforms: readonly string[];
  /**
   * How a refusal of an unknown backend/platform pair names what the server serves, e.g.
   * `JavaScript models (backend "javascript")`; absent: not named there (the ensemble).
   */
  readonly serves?: string;
  /**
   * The model file names looked for, in order, in the version directories when the config sets no
   * `default_model_filename`; the first one present (else the first) becomes it. Absent: core
   * autocomplete's default stands (ORT's `model.onnx`) or there is no model file (the ensemble).
   */
  readonly modelFilenames?: readonly string[];
  /**
   * Its autocomplete from the model itself, after core's and before the unsupported-feature check
   * (ONNX Runtime's reads the model file); skipped with --disable-auto-complete-config. Undefined
   * from the call: nothing to fill.
   */
  readonly autocomplete?: (
    raw: RawModelConfig,
    ctx: AutocompleteContext,
  ) => Promise<BackendAutocomplete | undefined>;
  /** Its models may be decoupled (`model_transaction_policy { decoupled: true }`). */
  readonly mayBeDecoupled: boolean;
  /**
   * Its instance groups: undefined when its models run no instances of their own (the ensemble:
   * normalization gives it none and validation checks none). `gpu`: KIND_AUTO may become KIND_GPU
   * when GPUs are available; `defaultCpuCount`: a KIND_CPU group's count when the config says < 1.
   */
  readonly instances?: { readonly gpu: boolean; readonly defaultCpuCount: number };
  /** Whole-config rules, run right after the backend/platform pair is accepted. */
  readonly checkConfig?: (config: ModelConfig) => void;
  /** Each input's and output's rules on its data_type, run after its name is checked. */
  readonly checkTensorType?: (config: ModelConfig, what: string, tensor: ModelTensorConfig) => void;
  /** Each input's and output's further rules, run after the common rules on it. */
  readonly checkTensor?: (config: ModelConfig, what: string, tensor: ModelTensorConfig) => void;
  /** Rules on how its requests are scheduled (an ensemble's steps), after the common batching rules. */
  readonly checkScheduling?: (config: ModelConfig) => void;
  /** Each instance group's further rules, after the common rules on it (`at` names the group). */
  readonly checkInstanceGroup?: (
    config: ModelConfig,
    at: string,
    group: InstanceGroupConfig,
  ) => void;
}

/** The backends the server runs, as the pipeline sees them. */
export type BackendRuleList = readonly BackendConfigRules[];

/**
 * The rules of the backend a config names: its `backend`, or its `platform` when it names none, as
 * the registry chooses; undefined when no backend has that name (validateBackend refuses it).
 */
export function rulesFor(
  backends: BackendRuleList,
  config: { readonly backend?: string | undefined; readonly platform?: string | undefined },
): BackendConfigRules | undefined {
  const backend = config.backend ?? '';
  if (backend !== '') return backends.find((r) => r.backend === backend);
  const platform = config.platform ?? '';
  return backends.find((r) => r.backend === '' && r.platforms.includes(platform));
}

/** The name a backend is registered under: its `backend`, or its platform when it has none. */
export function rulesName(rules: BackendConfigRules): string {
  return rules.backend !== '' ? rules.backend : (rules.platforms[0] ?? '');
}
