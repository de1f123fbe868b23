// The `mlp` model's shape and seeded weights, shared by the generator (which stores them) and the
// tests (which run a plain-JS forward pass over the very same numbers as the reference answer).

import { mulberry32, uniformFloats } from './seeded-random.js';

/** Layer widths: 784 -> 512 -> 512 -> 10, ReLU after every layer but the last. */
export const MLP_WIDTHS = [784, 512, 512, 10] as const;

/** Fixed seed: changing it changes every bundled mlp weight (and so the committed model's answers). */
export const MLP_SEED = 0x1f2e3d4c;

/**
 * The seed of the fixture `mlp_reseeded`: the same network with other weights, which the reload
 * tests serve as a second version of `mlp` so that an answer shows which version computed it.
 */
export const MLP_RESEEDED_SEED = 0x5eed0002;

export interface DenseLayer {
  readonly inFeatures: number;
  readonly outFeatures: number;
  /** Row-major [inFeatures, outFeatures], as Gemm's B input with transB = 0. */
  readonly weight: Float32Array;
  /** [outFeatures]. */
  readonly bias: Float32Array;
}

/**
 * Returns the mlp's layers. Weights and biases are uniform in ±1/sqrt(fan_in) (PyTorch's Linear
 * default), which keeps activations O(1) through three layers: outputs are finite and non-trivial.
 * A fresh array set per call, so callers may not mutate what the generator later writes.
 */
export function mlpWeights(seed: number = MLP_SEED): DenseLayer[] {
  const next = mulberry32(seed);
  const layers: DenseLayer[] = [];
  for (let l = 0; l + 1 < MLP_WIDTHS.length; l++) {
    const inFeatures = MLP_WIDTHS[l] as number;
    const outFeatures = MLP_WIDTHS[l + 1] as number;
    const bound = 1 / Math.sqrt(inFeatures);
    const weight = uniformFloats(next, inFeatures * outFeatures, bound);
    const bias = uniformFloats(next, outFeatures, bound);
    layers.push({ inFeatures, outFeatures, weight, bias });
  }
  return layers;
}
