// FP16 tensors on Node 24+. Node 24 has a global Float16Array, and onnxruntime-common 1.30 then
// stores 'float16' tensor data as Float16Array — which onnxruntime-node's native binding cannot read
// (N-API has no float16 typed-array kind; session.run fails with "not enough space: expected 8,
// got 0"). infernode carries FP16 as raw 16-bit patterns anyway, so each thread that creates ORT
// tensors makes onnxruntime-common settle its (once-only, cached) type map while Float16Array is
// hidden: 'float16' then stays Uint16Array, which the binding reads on every Node version.

interface TensorConstructor {
  new (type: 'float16', data: Uint16Array, dims: readonly number[]): unknown;
}

export function pinFloat16ToUint16(Tensor: TensorConstructor): void {
  const g = globalThis as { Float16Array?: unknown };
  const saved = g.Float16Array;
  if (saved === undefined) return; // Node 20/22: Uint16Array is already the mapping
  delete g.Float16Array;
  try {
    new Tensor('float16', new Uint16Array(1), [1]); // runs onnxruntime-common's one-time check
  } finally {
    g.Float16Array = saved;
  }
}
