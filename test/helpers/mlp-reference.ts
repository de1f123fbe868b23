// The bundled mlp computed in plain JS from the generator's own weights: the reference answer the
// integration tests compare the server's rows with (double accumulation, float32 activations).

import { mlpWeights } from '../../scripts/onnx/mlp-weights.js';

/** One row: 784 inputs -> 10 outputs. */
export function mlpReference(x: Float32Array, seed?: number): Float32Array {
  let h: Float32Array = x;
  const layers = mlpWeights(seed);
  layers.forEach((layer, li) => {
    const out = new Float32Array(layer.outFeatures);
    for (let o = 0; o < layer.outFeatures; o++) {
      let acc = layer.bias[o] as number;
      for (let i = 0; i < layer.inFeatures; i++) {
        acc += (h[i] as number) * (layer.weight[i * layer.outFeatures + o] as number);
      }
      out[o] = li < layers.length - 1 ? Math.max(0, acc) : acc;
    }
    h = out;
  });
  return h;
}
