// What models that call other models see of the server: ensembles (their steps) and JavaScript
// models (their BLS calls). Both reach the models serving now through the registry, and send
// requests through the data plane's inference entry, which the server hands over once it exists
// (the data plane is built on top of the registry, so it comes after the model manager).

import { fail } from '../errors.js';
import type { BlsCallContext, BlsHost } from '../execution/javascript/instance-channel.js';
import type { DecodedRequest, InferenceResponse } from '../protocol/inference-request.js';
import type { EnsembleHost } from './backends/ensemble/ensemble-host.js';
import type { ModelRegistry } from './model-registry.js';
import type { ModelSignature } from './model-signature.js';

export class ServerHost implements EnsembleHost, BlsHost {
  private inference: BlsHost['infer'] | undefined;

  constructor(private readonly registry: ModelRegistry) {}

  /** The data plane's inference entry; until it is given, calls are refused as not ready. */
  useInference(infer: BlsHost['infer']): void {
    this.inference = infer;
  }

  signature(model: string, version: string | undefined): ModelSignature {
    return this.registry.resolve(model, version).signature;
  }

  ready(model: string, version: string | undefined): boolean {
    try {
      return this.registry.resolve(model, version).ready();
    } catch {
      return false;
    }
  }

  infer(
    model: string,
    version: string | undefined,
    request: DecodedRequest,
    ctx: BlsCallContext,
  ): Promise<InferenceResponse> {
    return this.inference === undefined
      ? Promise.reject(fail('MODEL_NOT_READY', 'the server is not serving yet'))
      : this.inference(model, version, request, ctx);
  }
}
