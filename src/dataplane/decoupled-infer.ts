// A decoupled model's request (Triton's decoupled transaction policy: zero or more responses per
// request). Only a transport that can stream (InferContext.responses) takes one: each response is
// emitted as the model sends it, and the request is answered with the final flag alone.

import { fail, fromWire, toServerError } from '../errors.js';
import type { ResponseSink } from '../execution/run-scope.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { ModelVersion } from '../repository/model-version.js';
import type { RegionRegistry } from '../shared-memory/region-registry.js';
import type { Admission } from '../tenant/tenant-gate.js';
import type { InferContext } from './data-plane-api.js';
import { failureReason, reportFailed, reportSucceeded } from './outcome-report.js';
import { streamedOutputs } from './response-outputs.js';
import { validateRequest } from './validate-request.js';

/**
 * The response parameter that marks a decoupled request's last response (Triton's gRPC stream
 * name): true on the final flag alone, false on every response before it.
 */
export const FINAL_RESPONSE_PARAMETER = 'triton_final_response';

/** What a decoupled request needs from the data plane (its DataPlaneOptions provide it). */
export interface DecoupledServices {
  /** --http-max-input-size, also the cap on one request's tensor bytes in shared memory. */
  readonly maxInputBytes: number;
  /** Client shared-memory registrations; a decoupled request that names a region is refused. */
  readonly sharedMemory?: RegionRegistry;
}

/**
 * A decoupled model's request: each response the model sends goes to `ctx.responses` as it
 * arrives (with `triton_final_response: false`), a failure (validation, a failed run) is emitted
 * as one more error, and the promise resolves with the final flag. Only a cancelled request
 * rejects, and one from a transport that answers once (no `ctx.responses`): DECOUPLED_UNSUPPORTED.
 */
export async function inferDecoupled(
  services: DecoupledServices,
  mv: ModelVersion,
  request: DecodedRequest | RawBinaryRequest,
  ctx: InferContext,
  admission: Admission | undefined,
): Promise<InferenceResponse> {
  const reporter = mv.reporter;
  const emit = ctx.responses;
  if (emit === undefined) {
    reportFailed(reporter, 'OTHER', ctx.arrivalNs);
    throw fail(
      'DECOUPLED_UNSUPPORTED',
      `model '${mv.name}' has a decoupled transaction policy (zero or more responses per ` +
        `request): this endpoint answers each request once and doesn't support models with ` +
        `decoupled transaction policy; use the WebSocket protocol or a BLS inferStream`,
    );
  }
  const id = 'rawBinary' in request ? undefined : request.id;
  try {
    const checked = validateRequest(mv.signature, request, {
      signal: ctx.signal,
      arrivalNs: ctx.arrivalNs,
      maxInputBytes: services.maxInputBytes,
      ...(services.sharedMemory !== undefined && { sharedMemory: services.sharedMemory }),
      ...(admission !== undefined && { tenant: admission.tag }),
    });
    if (checked.regions !== undefined) {
      checked.regions.releaseAll();
      throw fail(
        'UNSUPPORTED',
        `model '${mv.name}' is decoupled: its requests cannot name shared-memory regions`,
      );
    }
    const sink: ResponseSink = {
      response: (outputs) =>
        emit({
          model_name: mv.name,
          model_version: String(mv.version),
          ...(checked.id !== undefined ? { id: checked.id } : {}),
          parameters: { [FINAL_RESPONSE_PARAMETER]: false },
          outputs: streamedOutputs(mv, checked.outputs, outputs),
        }),
      error: (e) => emit(fromWire(e)),
    };
    const result = await mv.scheduler.enqueue({ ...checked, responses: sink });
    reportSucceeded(reporter, result, ctx.arrivalNs);
  } catch (e) {
    const err = toServerError(e);
    reportFailed(reporter, failureReason(err.code), ctx.arrivalNs);
    if (err.code === 'CANCELLED') throw err;
    emit(err);
  }
  return finalResponse(mv, id);
}

/** The final flag of a decoupled request: Triton's gRPC stream parameter, no outputs. */
function finalResponse(mv: ModelVersion, id: string | undefined): InferenceResponse {
  return {
    model_name: mv.name,
    model_version: String(mv.version),
    ...(id !== undefined ? { id } : {}),
    parameters: { [FINAL_RESPONSE_PARAMETER]: true },
    outputs: [],
  };
}
