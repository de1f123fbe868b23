// The seeded PRNG behind every generated weight: mulberry32, so models are byte-identical run to run
// and tests can rebuild the exact weights without reading the .onnx files.

/** Returns a generator of uniform floats in [0, 1) fully determined by `seed` (a uint32). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` float32 values uniform in (-bound, bound), rounded to float32 as they are stored, so the
 * array is exactly what the model holds.
 */
export function uniformFloats(next: () => number, count: number, bound: number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * bound;
  return out;
}
