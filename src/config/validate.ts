// Validate: the rules a normalized ModelConfig must meet before a model loads. Mostly Triton core's
// ValidateModelConfig / ValidateIOShape / ValidateInstanceGroup (messages kept close to Triton's, so
// they search well), plus checks Triton leaves to load time (warmup inputs, paths escaping the model
// directory). Errors say what was expected and what arrived. The rules of one backend (JavaScript's,
// the ensemble's steps, ONNX Runtime's own) are its `BackendConfigRules` (backend-rules.ts), which
// run here at fixed points, so that a config broken twice is refused for the same rule as before.

import { fail } from '../errors.js';
import { ENSEMBLE_PLATFORM, ONNX_MODEL_FILENAME } from './autocomplete.js';
import { rulesFor, type BackendConfigRules, type BackendRuleList } from './backend-rules.js';
import type { ModelConfig, ModelTensorConfig } from './model-config.js';
import { validateSequenceBatching } from './validate-sequence.js';

export interface ValidateContext {
  /** The model directory's name, which `name` must equal. */
  readonly modelName: string;
  /**
   * GPU ids this process can use. Undefined when it cannot tell (no GPU execution provider is
   * installed): GPU groups are then not checked here, and the instance start fails instead with a
   * message naming the missing provider and how to install it, which is what a user needs to read.
   */
  readonly availableGpus?: readonly number[];
  /** The backends the server runs (the registry's list): the pairs accepted, and their rules. */
  readonly backends: BackendRuleList;
}

const invalid = (message: string): Error => fail('CONFIG_INVALID', message);

/**
 * Throws CONFIG_INVALID or UNSUPPORTED on the first broken rule. A backend's own settings (ORT's
 * parameters, graph level and accelerators; a JavaScript model's timeouts) are read after the
 * pipeline, by the model's backend (repository/backends/, `Backend.bind`).
 */
export function validateModelConfig(config: ModelConfig, ctx: ValidateContext): void {
  const name = config.name;
  if (name === '') throw invalid("model configuration must specify 'name'");
  if (name !== ctx.modelName) {
    throw invalid(
      `unexpected directory name '${ctx.modelName}' for model '${name}', directory name must equal model name`,
    );
  }
  const rules = validateBackend(config, ctx.backends);
  rules.checkConfig?.(config);
  if (config.max_batch_size < 0) {
    throw invalid(
      `'max_batch_size' must be non-negative value for ${name}, got ${config.max_batch_size}`,
    );
  }
  const vp = config.version_policy;
  if ('latest' in vp && vp.latest.num_versions < 1) {
    throw invalid(
      `version_policy latest.num_versions must be >= 1 for ${name}, got ${vp.latest.num_versions}`,
    );
  }
  if (
    'specific' in vp &&
    (vp.specific.versions.length === 0 || vp.specific.versions.some((v) => v < 0))
  ) {
    throw invalid(
      `version_policy specific.versions must list version numbers >= 0 for ${name}, got [${vp.specific.versions.join(', ')}]`,
    );
  }
  validateTensors(config, rules, 'input', config.input);
  validateTensors(config, rules, 'output', config.output);
  validateDynamicBatching(config);
  validateSequenceBatching(config);
  // Triton's rule for every model: ensemble_scheduling belongs to platform "ensemble" alone.
  if (config.platform !== ENSEMBLE_PLATFORM && config.ensemble_scheduling !== undefined) {
    throw invalid(
      `ensemble scheduling cannot be set for model '${name}' whose platform is not ensemble`,
    );
  }
  rules.checkScheduling?.(config);
  if (rules.instances !== undefined)
    validateInstanceGroups(
      config,
      rules,
      ctx.availableGpus === undefined ? undefined : new Set(ctx.availableGpus),
    );
  validateWarmup(config);
  validateResponseCache(config);
  checkRelativePath(name, 'default_model_filename', config.default_model_filename);
}

/**
 * The pairs `backends` accept (each backend's `backend` with one of its `platforms`) are served, and
 * their rules returned; anything else is refused: CONFIG_INVALID when neither is given or a served
 * backend has another platform, else UNSUPPORTED, naming what is served.
 */
export function validateBackend(
  config: Pick<ModelConfig, 'name' | 'platform' | 'backend'>,
  backends: BackendRuleList,
): BackendConfigRules {
  const { name, platform, backend } = config;
  const rules = rulesFor(backends, config);
  if (rules !== undefined && rules.backend === backend && rules.platforms.includes(platform))
    return rules;
  if (backend === '' && platform === '') {
    const named = backends.filter((r) => r.backend !== '').map((r) => `backend "${r.backend}"`);
    throw invalid(
      `must specify 'platform' or 'backend' for '${name}' (infernode serves ${list(named)}; with auto-complete on, a version directory holding ${ONNX_MODEL_FILENAME} is enough)`,
    );
  }
  if (backend !== '' && rules !== undefined) {
    throw invalid(`unexpected 'platform' and 'backend' pair, got:${platform}, ${backend}`);
  }
  const served = backends.flatMap((r) => (r.serves === undefined ? [] : [r.serves]));
  throw fail(
    'UNSUPPORTED',
    `model '${name}' has backend "${backend}" and platform "${platform}": infernode serves ${list(served)}`,
  );
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length < 2
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

/** Element counts of the runs of fixed dims between -1 dims: [2, 4, -1, 6] -> [8, 6]. */
function chunks(dims: readonly number[]): number[] {
  const out: number[] = [];
  let n = 1;
  for (const d of dims) {
    if (d === -1) {
      out.push(n);
      n = 1;
    } else n *= d;
  }
  out.push(n);
  return out;
}

function validateTensors(
  config: ModelConfig,
  rules: BackendConfigRules,
  role: 'input' | 'output',
  list: readonly ModelTensorConfig[],
): void {
  const model = config.name;
  const seen = new Set<string>();
  for (const t of list) {
    const what = `model ${role} '${t.name}'`;
    if (t.name === '') throw invalid(`model ${role} must specify 'name' for ${model}`);
    if (seen.has(t.name)) throw invalid(`${what} is specified more than once for ${model}`);
    seen.add(t.name);
    rules.checkTensorType?.(config, what, t);
    if (t.dims.length === 0) throw invalid(`${what} must specify 'dims' for ${model}`);
    const badDim = t.dims.find((d) => d < 1 && d !== -1);
    if (badDim !== undefined) {
      throw invalid(
        `${what} dimension must be integer >= 1, or -1 to indicate a variable-size dimension for ${model}, got dims [${t.dims.join(', ')}]`,
      );
    }
    if ((t.format === 'FORMAT_NHWC' || t.format === 'FORMAT_NCHW') && t.dims.length !== 3) {
      throw invalid(
        `model input NHWC/NCHW require 3 dims for ${model}: ${what} has dims [${t.dims.join(', ')}]`,
      );
    }
    if (t.reshape !== undefined) validateReshape(config, what, t.dims, t.reshape.shape);
    if (t.label_filename !== undefined) {
      checkRelativePath(model, `output '${t.name}' label_filename`, t.label_filename);
    }
    rules.checkTensor?.(config, what, t);
  }
}

/** Triton's ValidateIOShape reshape rules: same element count, chunk by chunk around -1 dims. */
function validateReshape(
  config: ModelConfig,
  what: string,
  dims: readonly number[],
  shape: readonly number[],
): void {
  const model = config.name;
  const pair = `dims [${dims.join(', ')}], reshape [${shape.join(', ')}]`;
  if (shape.length === 0 && config.max_batch_size === 0) {
    throw invalid(
      `${what} cannot have empty reshape for non-batching model as scalar tensors are not supported for ${model}`,
    );
  }
  if (shape.some((d) => d < 1 && d !== -1)) {
    throw invalid(
      `${what} reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension for ${model}, got ${pair}`,
    );
  }
  const a = chunks(dims);
  const b = chunks(shape);
  // An empty reshape (a scalar per batch item) matches dims whose element count is 1.
  if (shape.length === 0 && a.length === 1 && a[0] === 1) return;
  if (a.length !== b.length) {
    throw invalid(
      `${what} has different number of variable-size dimensions for dims and reshape for ${model}: ${pair}`,
    );
  }
  if (a.some((n, i) => n !== b[i]))
    throw invalid(`${what} has different size for dims and reshape for ${model}: ${pair}`);
}

function validateDynamicBatching(config: ModelConfig): void {
  const db = config.dynamic_batching;
  if (db === undefined) return;
  const model = config.name;
  for (const size of db.preferred_batch_size) {
    if (size <= 0)
      throw invalid(`dynamic batching preferred size must be positive for ${model}, got ${size}`);
    if (size > config.max_batch_size) {
      throw invalid(
        `dynamic batching preferred size must be <= max batch size for ${model}, got ${size} > ${config.max_batch_size}`,
      );
    }
  }
  const levels = db.priority_levels;
  if (levels !== 0) {
    if (db.default_priority_level === 0 || db.default_priority_level > levels) {
      throw invalid(
        `default priority level must be in range [1, ${levels}] for ${model}, got ${db.default_priority_level}`,
      );
    }
    for (const key of Object.keys(db.priority_queue_policy)) {
      const level = Number(key);
      if (level === 0 || level > levels) {
        throw invalid(
          `priority queue policy must have priority level in range [1, ${levels}] for ${model}, got ${key}`,
        );
      }
    }
  }
  if (db.preserve_ordering) {
    if (levels > 1)
      throw invalid(
        `Only one priority level is allowed when 'preserve_ordering' is true for ${model}`,
      );
    const policies = [db.default_queue_policy, ...Object.values(db.priority_queue_policy)];
    if (
      policies.some(
        (p) =>
          p !== undefined && p.default_timeout_microseconds !== 0 && p.timeout_action === 'DELAY',
      )
    ) {
      throw invalid(
        `Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for ${model}`,
      );
    }
  }
}

function validateInstanceGroups(
  config: ModelConfig,
  rules: BackendConfigRules,
  gpus: ReadonlySet<number> | undefined,
): void {
  const model = config.name;
  if (config.instance_group.length === 0)
    throw invalid(`must specify one or more 'instance group's for ${model}`);
  for (const g of config.instance_group) {
    const at = `instance group ${g.name} of model ${model}`;
    switch (g.kind) {
      case 'KIND_CPU':
        if (g.gpus.length > 0)
          throw invalid(`${at} has kind KIND_CPU but specifies one or more GPUs`);
        break;
      case 'KIND_GPU': {
        if (gpus === undefined) break; // unknown here: the provider check at instance start decides
        if (g.gpus.length === 0) {
          throw invalid(
            `${at} has kind KIND_GPU but ${gpus.size === 0 ? 'no GPUs are available' : 'specifies no GPUs'}`,
          );
        }
        const missing = g.gpus.find((id) => !gpus.has(id));
        if (missing !== undefined) {
          throw invalid(
            `${at} specifies invalid or unsupported gpu id ${missing}; available GPUs are: [${[...gpus].join(', ')}]`,
          );
        }
        break;
      }
      case 'KIND_MODEL':
        break; // the backend decides (ONNX Runtime and JavaScript refuse it)
      case 'KIND_AUTO':
        throw fail('INTERNAL', `${at} has unexpected kind KIND_AUTO after normalization`);
    }
    for (const [k, r] of (g.rate_limiter?.resources ?? []).entries()) {
      if (r.name === '') {
        throw invalid(`${at}: rate_limiter resources[${k}] needs a name, got an empty one`);
      }
    }
    rules.checkInstanceGroup?.(config, at, g);
  }
}

function validateWarmup(config: ModelConfig): void {
  const model = config.name;
  const inputs = new Map(config.input.map((t) => [t.name, t]));
  const limit = Math.max(config.max_batch_size, 1);
  for (const w of config.model_warmup) {
    const at = `warmup sample '${w.name}' of model ${model}`;
    if (w.batch_size > limit)
      throw invalid(`${at} has batch_size ${w.batch_size}, above the model's limit of ${limit}`);
    for (const [key, i] of Object.entries(w.inputs)) {
      const t = inputs.get(key);
      if (t === undefined) {
        throw invalid(
          `${at} sets input '${key}', which the model does not have; inputs are: ${[...inputs.keys()].join(', ')}`,
        );
      }
      if (i.data_type !== t.data_type)
        throw invalid(`${at}: input '${key}' is ${i.data_type}, expected ${t.data_type}`);
      const fits =
        i.dims.length === t.dims.length &&
        i.dims.every((d, k) => t.dims[k] === -1 || t.dims[k] === d);
      if (!fits || i.dims.some((d) => d < 1)) {
        throw invalid(
          `${at}: input '${key}' needs fixed dims matching [${t.dims.join(', ')}] (without the batch dim), got [${i.dims.join(', ')}]`,
        );
      }
      const sources = [
        i.zero_data !== undefined,
        i.random_data !== undefined,
        i.input_data_file !== undefined,
      ];
      if (!sources.includes(true)) {
        throw invalid(
          `${at} expects input '${key}' to have input_data_type set (zero_data, random_data or input_data_file)`,
        );
      }
      if (i.input_data_file !== undefined)
        checkRelativePath(model, `${at} input '${key}' input_data_file`, i.input_data_file);
    }
    for (const t of config.input) {
      if (!t.optional && !Object.prototype.hasOwnProperty.call(w.inputs, t.name)) {
        throw invalid(`${at} does not set required input '${t.name}'`);
      }
    }
  }
}

/** Files named in config.pbtxt must stay inside the model directory. */
function checkRelativePath(model: string, what: string, p: string): void {
  if (p === '') return;
  const parts = p.split(/[\\/]/);
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || parts.includes('..') || p.includes('\0')) {
    throw invalid(
      `${what} of model ${model} must be a path inside the model directory, got "${p}"`,
    );
  }
}

/**
 * The response cache serves one stored answer per request, so models whose answers are not a
 * function of one request's inputs are refused: decoupled models (any number of responses; Triton's
 * message, model_config_utils.cc) and sequence models (their state carries over between requests;
 * Triton's sequence batcher never consults the cache, infernode refuses instead of ignoring it).
 */
function validateResponseCache(config: ModelConfig): void {
  if (config.response_cache?.enable !== true) return;
  if (config.model_transaction_policy.decoupled) {
    throw invalid(
      `Response Cache does not currently support model ${config.name} with 'decoupled' transaction policy. Please disable the response cache.`,
    );
  }
  if (config.sequence_batching !== undefined) {
    throw invalid(
      `Response Cache does not currently support model ${config.name} with sequence batching: a sequence model's answer depends on its earlier requests. Please disable the response cache.`,
    );
  }
}
