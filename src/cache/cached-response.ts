// What the response cache stores for one request: its output tensors (name, datatype, shape and a
// private copy of the bytes), in the order the request asked for them. A hit rebuilds the response
// for the request at hand (its own id; the same outputs, since the key covers which outputs and how
// they are returned), so the answer's content is byte-identical to the run that filled the entry.

import type { Datatype } from '../tensor/datatypes.js';
import type { InferenceResponse, ResponseOutput } from '../protocol/inference-request.js';

export interface CachedOutput {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly data: Uint8Array;
}

export interface CachedResponse {
  readonly outputs: readonly CachedOutput[];
  /** Bytes of the tensors plus a per-output estimate of names and shapes, for the byte budget. */
  readonly byteSize: number;
}

/** Names, shape arrays and object headers of one stored output, counted against the budget. */
const OUTPUT_OVERHEAD_BYTES = 64;

/**
 * The outputs of a successful run, copied once each into a buffer of exactly its size: a
 * response's data may be a view of a shared-memory block that the next batch reuses, of a whole
 * response or of a pooled Buffer slab. A Buffer's own `slice()` is such a view, so the copy is
 * made explicitly: the bytes the budget counts are the bytes the entry holds.
 */
export function toCachedResponse(outputs: readonly ResponseOutput[]): CachedResponse {
  let byteSize = 0;
  const stored = outputs.map((o): CachedOutput => {
    byteSize += o.data.byteLength + o.name.length + 8 * o.shape.length + OUTPUT_OVERHEAD_BYTES;
    return { name: o.name, datatype: o.datatype, shape: [...o.shape], data: copyOf(o.data) };
  });
  return { outputs: stored, byteSize };
}

function copyOf(data: Uint8Array): Uint8Array {
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return copy;
}

/** The response for a request answered from the cache. */
export function fromCachedResponse(
  cached: CachedResponse,
  head: { readonly model_name: string; readonly model_version: string; readonly id?: string },
  binary: ReadonlyMap<string, boolean>,
): InferenceResponse {
  return {
    ...head,
    outputs: cached.outputs.map((o) => ({
      name: o.name,
      datatype: o.datatype,
      shape: o.shape,
      data: o.data,
      binary: binary.get(o.name) === true,
    })),
  };
}
