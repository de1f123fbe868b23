// What an ensemble needs from the server around it: the signature and readiness of the models its
// steps name (as they serve now, so a step always runs the version the registry resolves), and the
// data plane's own inference entry, so every step is validated, queued, batched with other traffic
// to its model and counted in that model's statistics exactly like a client's request.

import type { RequestSpan } from '../../../trace/request-span.js';
import type { DecodedRequest, InferenceResponse } from '../../../protocol/inference-request.js';
import type { ModelSignature } from '../../model-signature.js';

/** What a step's request carries besides its tensors (the data plane's InferContext). */
export interface StepContext {
  readonly signal: AbortSignal;
  /** process.hrtime.bigint() as a number when the step was sent. */
  readonly arrivalNs: number;
  /** The traced ensemble request's span: the step's span is its child. */
  readonly parentSpan?: RequestSpan;
}

export interface EnsembleHost {
  /** The serving version's signature; throws MODEL_NOT_FOUND / MODEL_NOT_READY as the registry does. */
  signature(model: string, version: string | undefined): ModelSignature;
  /** The version serves and is ready. */
  ready(model: string, version: string | undefined): boolean;
  infer(
    model: string,
    version: string | undefined,
    request: DecodedRequest,
    ctx: StepContext,
  ): Promise<InferenceResponse>;
}

/** A step's `model_version` as the registry takes it: -1 (or less) means the latest serving one. */
export function stepVersion(v: number): string | undefined {
  return v < 0 ? undefined : String(v);
}
