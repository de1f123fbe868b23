// Tensor shapes: element counts, config.pbtxt `reshape` (the shape a client sends vs the shape the
// model takes), and how messages print a shape. Dims are checked (safe integers >= 0) before here.

/** Number of elements of a shape (1 for a scalar); the caller has checked every dim. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * `shape` with its non-batch dims replaced by `dims`, the way Triton applies `reshape`: the first
 * dim stays when the model batches, and a -1 in `dims` takes the elements the known dims leave (0
 * when they hold none). It runs both ways: a request shape to the model's (`dims` = reshape.shape),
 * and a model output shape back to the configured dims. The config pipeline has checked that both
 * sides hold the same number of elements.
 */
export function reshape(
  shape: readonly number[],
  dims: readonly number[],
  batched: boolean,
): number[] {
  const batch = batched ? shape.slice(0, 1) : [];
  const elements = elementCount(shape.slice(batch.length));
  let known = 1;
  for (const d of dims) if (d !== -1) known *= d;
  return [...batch, ...dims.map((d) => (d === -1 ? (known === 0 ? 0 : elements / known) : d))];
}

/** `[1,16]`: the shape the way every message prints it. */
export function shapeText(shape: readonly unknown[]): string {
  return `[${shape.join(',')}]`;
}
