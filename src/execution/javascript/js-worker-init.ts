// What a JavaScript model's worker gets beyond the common WorkerInit fields (messages.ts): its
// config, directory and outputs. Plain data only (structured clone).

import type { Datatype } from '../../tensor/datatypes.js';

/** What a JavaScript model's worker needs beyond the common fields. Plain data only. */
export interface JavascriptWorkerInit {
  /** The frozen config as Triton's JSON (`/v2/models/<m>/config`), handed to initialize(). */
  readonly modelConfig: Readonly<Record<string, unknown>>;
  /** The model directory (args.model_repository, as in Triton's Python backend). */
  readonly modelDir: string;
  /** Rows lead every input and output (max_batch_size > 0). */
  readonly batched: boolean;
  /** The config's outputs, which every response is checked against. */
  readonly outputs: readonly OutputSpec[];
  /** `model_transaction_policy { decoupled: true }`: each request gets a response sender. */
  readonly decoupled: boolean;
}

/** One configured output: its datatype and dims (without the batch dim). */
export interface OutputSpec {
  readonly name: string;
  readonly datatype: Datatype;
  readonly dims: readonly number[];
}
