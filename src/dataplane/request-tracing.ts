// Triton's trace extension as the data plane serves it: the trace setting API (the server's
// settings or one model's), and the span of a request the tracer sampled, ended with the
// request's stage stamps and its outcome.

import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import { fail } from '../errors.js';
import type { ModelRegistry } from '../repository/model-registry.js';
import type { RequestSpan } from '../trace/request-span.js';
import type { RequestTracer } from '../trace/request-tracer.js';
import { StageTrace } from '../trace/stage-trace.js';
import type { TraceSettingsJson, TraceUpdate } from '../trace/trace-settings.js';
import type { InferContext } from './data-plane-api.js';

/**
 * `GET`/`POST /v2[/models/{m}]/trace/setting` and gRPC TraceSetting: the settings of the server
 * (`model` undefined) or of a model the repository knows, after `update` when there is one.
 * `tracer` absent (no --trace-config): UNSUPPORTED.
 */
export function answerTraceSetting(
  tracer: RequestTracer | undefined,
  models: Pick<ModelRegistry, 'entry'>,
  model: string | undefined,
  update: TraceUpdate | undefined,
): TraceSettingsJson {
  if (tracer === undefined) throw fail('UNSUPPORTED', 'tracing is not enabled on this server');
  if (model !== undefined && models.entry(model) === undefined) {
    throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${model}' is not found`);
  }
  return update === undefined ? tracer.settings(model) : tracer.update(model, update);
}

/**
 * A sampled request: `answer` runs with a stage trace that carries `span` (the transport's, or a
 * new one), and the span ends when it settles, with the response's id or the error.
 */
export async function inferTraced(
  span: RequestSpan,
  request: DecodedRequest | RawBinaryRequest,
  ctx: InferContext,
  answer: (ctx: InferContext) => Promise<InferenceResponse>,
): Promise<InferenceResponse> {
  const trace = ctx.trace ?? new StageTrace(ctx.arrivalNs);
  trace.span = span;
  const id = 'rawBinary' in request ? undefined : request.id;
  try {
    const response = await answer({ ...ctx, trace });
    span.end(trace, hrNow(), response.id ?? id);
    return response;
  } catch (e) {
    span.end(trace, hrNow(), id, e as Error);
    throw e;
  }
}

function hrNow(): number {
  return Number(process.hrtime.bigint());
}
