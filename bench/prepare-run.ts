// The part of a run both entry points share before any load: the model's inputs resolved against
// --shape and -b, the input data, and the request bodies built from it. With --cache-hit-ratio
// the first input's first element is the nonce placeholder the generator overwrites per request.

import { NONCE_DATATYPES, NONCE_PLACEHOLDER } from './load/cache-hit-requests.js';
import { loadInputSets, type InputSet } from './model/input-data.js';
import { resolveInputs, type ModelSignature } from './model/model-signature.js';
import { binaryRequestBody, jsonRequestBody } from './model/request-body.js';
import { SEQUENCE_PLACEHOLDER } from './load/http-sequence-requests.js';
import type { RequestBody } from './load/http-request.js';
import type { BenchOptions } from './options/bench-options.js';
import { UsageError } from './options/usage-error.js';
import type { ModelUnderTest } from './report/result-types.js';

export interface PreparedRun {
  readonly sets: readonly InputSet[];
  readonly bodies: readonly RequestBody[];
  readonly model: ModelUnderTest;
  readonly outputs: readonly string[];
}

export function prepareRun(
  sig: ModelSignature,
  version: string,
  options: BenchOptions,
): PreparedRun {
  const inputs = resolveInputs(sig, options.shapes, options.batchSize);
  const loaded = loadInputSets(options.inputData, inputs, sig.maxBatchSize > 0, {
    batchSize: options.batchSize,
    seed: options.seed,
    stringLength: options.stringLength,
  });
  const sets = options.cacheHitRatio === null ? loaded : loaded.map(withNoncePlaceholder);
  // A sequence model's requests carry placeholders the generator patches per request.
  const parameters = sig.sequenceBatching ? SEQUENCE_PLACEHOLDER : undefined;
  const bodies = sets.map((set) =>
    options.binary ? binaryRequestBody(set, parameters) : jsonRequestBody(set, parameters),
  );
  return {
    sets,
    bodies,
    outputs: sig.outputs.map((o) => o.name),
    model: {
      name: sig.name,
      version,
      maxBatchSize: sig.maxBatchSize,
      batchSize: options.batchSize,
      inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape })),
      requestBytes: bodies.map((b) => b.body.byteLength),
    },
  };
}

/** `set` with its first input's first element replaced by the nonce placeholder. */
function withNoncePlaceholder(set: InputSet): InputSet {
  const [first, ...rest] = set;
  if (first === undefined || first.elements.length === 0) {
    throw new UsageError('--cache-hit-ratio: the first input has no elements to vary');
  }
  if (!NONCE_DATATYPES.includes(first.datatype)) {
    throw new UsageError(
      `--cache-hit-ratio: the first input ${first.name} is ${first.datatype}; the nonce needs ` +
        `one of ${NONCE_DATATYPES.join(', ')}`,
    );
  }
  const elements = [NONCE_PLACEHOLDER, ...(first.elements as readonly number[]).slice(1)];
  return [{ ...first, elements }, ...rest];
}
