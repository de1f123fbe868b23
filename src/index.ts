// The package's server API (`import { startServer } from 'infernode'`): embeds the whole server in
// an application, and runs requests through the same data plane with no network (Triton's
// in-process C API, in TypeScript). The typed network client is `infernode/client`.

import { DEFAULT_OPTIONS, type ServerOptions } from './cli/server-options.js';
import type { Tensor } from './client/client-tensor.js';
import { tensorBytes, tensorFromBytes } from './client/client-tensor.js';
import type { InferOptions, InferResult } from './client/client-types.js';
import { createLogger, type Logger } from './logger.js';
import { logSettingsOf } from './logging/log-settings.js';
import type { DecodedRequest } from './protocol/inference-request.js';
import { startServer as startComposed, type RunningServer } from './server.js';

export type { ServerOptions } from './cli/server-options.js';
export { InferenceServerError, ERROR_CATALOG, type ErrorCode } from './errors.js';
export { tensor, type Tensor, type TypedArrayMap } from './client/client-tensor.js';
export { output, type InferOptions, type InferResult } from './client/client-types.js';

/** Options as the CLI's flags (camel-cased), each defaulting as its flag does. */
export type EmbeddedOptions = Partial<ServerOptions> & {
  readonly modelRepositories: readonly string[];
  /**
   * Where log records go; default: a logger following the `--log-*` options (pino JSON on stdout
   * unless `logFormat`/`logFile` say otherwise), which the logging extension then controls.
   */
  readonly logger?: Logger;
};

export interface InfernodeServer {
  /** The listening ports (HTTP always; gRPC and metrics unless turned off). */
  readonly httpPort: number;
  readonly grpcPort: number | undefined;
  readonly metricsPort: number | undefined;
  /**
   * Runs one inference through validation, the model's queue and its batches, without a socket.
   * Rejects with an `InferenceServerError` (a catalog `code`, as over HTTP and gRPC).
   */
  infer(model: string, inputs: readonly Tensor[], options?: InferOptions): Promise<InferResult>;
  /**
   * Drains as SIGTERM does (docs/operations.md): not ready at once, the listeners close after
   * `drainDelaySecs`, what is in flight finishes, then everything closes. `timeoutMs` (default
   * `exitTimeoutSecs`) bounds it; true when everything drained, false when it was cut short.
   */
  close(timeoutMs?: number): Promise<boolean>;
}

export async function startServer(options: EmbeddedOptions): Promise<InfernodeServer> {
  const { logger, ...rest } = options;
  const resolved: ServerOptions = Object.freeze({ ...DEFAULT_OPTIONS, ...rest });
  const running = await startComposed(resolved, logger ?? createLogger(logSettingsOf(resolved)));
  return {
    httpPort: running.httpPort,
    grpcPort: running.grpcPort,
    metricsPort: running.metricsPort,
    infer: (model, inputs, inferOptions = {}) => infer(running, model, inputs, inferOptions),
    close: (timeoutMs = resolved.exitTimeoutSecs * 1000) => running.shutdown(timeoutMs),
  };
}

async function infer(
  running: RunningServer,
  model: string,
  inputs: readonly Tensor[],
  options: InferOptions,
): Promise<InferResult> {
  const request: DecodedRequest = {
    parameters: options.parameters ?? {},
    inputs: inputs.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      parameters: {},
      data: { kind: 'raw', bytes: tensorBytes(t) },
    })),
    ...(options.outputs !== undefined
      ? { outputs: options.outputs.map((name) => ({ name, parameters: {} })) }
      : {}),
  };
  const signal =
    options.timeoutMs !== undefined
      ? AbortSignal.timeout(options.timeoutMs)
      : new AbortController().signal;
  const response = await running.dataPlane.infer(
    model,
    options.version !== undefined ? String(options.version) : undefined,
    request,
    { signal, arrivalNs: Number(process.hrtime.bigint()) },
  );
  return {
    modelName: response.model_name,
    modelVersion: response.model_version,
    // Output bytes are views of shared memory the scheduler reuses: each is copied out once.
    outputs: response.outputs.map((o) =>
      tensorFromBytes(o.name, o.datatype, o.shape, Uint8Array.prototype.slice.call(o.data)),
    ),
    // The embedded call names no shared-memory regions.
    regionOutputs: [],
  };
}
