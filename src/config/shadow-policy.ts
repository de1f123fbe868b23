// Shadow versions: a model's config names one candidate version that is loaded beside the serving
// ones and re-runs a sampled share of their live requests after each client has its answer
// (dataplane/shadow-runner.ts), for comparison only. Two model parameters, read here once per
// frozen config (a WeakMap keeps the reading, so the request path never parses text again):
//
//   parameters { key: "shadow_version" value: { string_value: "3" } }   the candidate's version
//   parameters { key: "shadow_share"   value: { string_value: "0.1" } } share of requests, 0..1
//
// Model parameters rather than a new config field: config.pbtxt stays loadable by Triton (which
// ignores unknown parameters), the load API's `config` JSON carries them unchanged, and promoting
// or rolling back is an edit of two strings. The shadow is kept loaded whatever version_policy
// says, is never what a request without a version resolves to, and still answers a request that
// names it. Ensembles, sequence models and decoupled models are refused: their requests are not
// self-contained (steps, sequence state, several responses), so a re-run would not compare.

import type { ModelConfig } from './model-config.js';
import { fail } from '../errors.js';

export const SHADOW_VERSION_PARAMETER = 'shadow_version';
export const SHADOW_SHARE_PARAMETER = 'shadow_share';

export interface ShadowPolicy {
  /** The candidate version re-running the sampled requests. */
  readonly version: number;
  /** Share of the serving versions' answered requests re-run on it, 0..1. */
  readonly share: number;
}

const read = new WeakMap<ModelConfig, ShadowPolicy | null>();

/**
 * The config's shadow policy, or undefined when it names none. Throws CONFIG_INVALID for a value
 * that is not one, or for a model kind a shadow cannot follow (the load then fails with it).
 */
export function shadowPolicy(config: ModelConfig): ShadowPolicy | undefined {
  const known = read.get(config);
  if (known !== undefined) return known ?? undefined;
  const policy = parseShadow(config);
  read.set(config, policy ?? null);
  return policy;
}

function parseShadow(config: ModelConfig): ShadowPolicy | undefined {
  const version = config.parameters[SHADOW_VERSION_PARAMETER]?.string_value;
  const share = config.parameters[SHADOW_SHARE_PARAMETER]?.string_value;
  if (version === undefined) {
    if (share !== undefined) {
      throw invalid(
        config,
        `parameter '${SHADOW_SHARE_PARAMETER}' needs '${SHADOW_VERSION_PARAMETER}'`,
      );
    }
    return undefined;
  }
  if (!/^[1-9]\d{0,14}$/.test(version)) {
    throw invalid(
      config,
      `parameter '${SHADOW_VERSION_PARAMETER}' expected a version number >= 1, got "${version}"`,
    );
  }
  const fraction = share === undefined ? NaN : Number(share);
  if (share === undefined || share.trim() === '' || !(fraction >= 0 && fraction <= 1)) {
    throw invalid(
      config,
      `parameter '${SHADOW_SHARE_PARAMETER}' expected a share between 0 and 1, got ` +
        (share === undefined ? 'none' : `"${share}"`),
    );
  }
  const kind =
    config.ensemble_scheduling !== undefined
      ? 'an ensemble'
      : config.sequence_batching !== undefined
        ? 'a sequence model'
        : config.model_transaction_policy.decoupled
          ? 'a decoupled model'
          : undefined;
  if (kind !== undefined) {
    throw invalid(
      config,
      `'${SHADOW_VERSION_PARAMETER}' is not supported for ${kind}: its requests cannot be ` +
        're-run on their own for comparison',
    );
  }
  return Object.freeze({ version: Number(version), share: fraction });
}

function invalid(config: ModelConfig, why: string): Error {
  return fail('CONFIG_INVALID', `model '${config.name}': ${why}`);
}
