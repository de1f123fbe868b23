// One run of a JavaScript model: RunRequest -> request objects -> execute() -> checked responses ->
// one output block -> RunResponse. A response that is an Error (or fails its checks) answers its
// own request only; execute() throwing, or answering with the wrong number of responses, answers
// the whole run. Never throws: every failure is data, messages scrubbed of paths.

import { toWireError } from '../worker-errors.js';
import type { WireError } from '../../errors.js';
import type { MemberResult, RunRequest, RunResponse } from '../messages.js';
import { buildRequests, type JsRequest } from './js-requests.js';
import {
  checkResponse,
  packResponses,
  type CheckedResponse,
  type ResponseRules,
} from './js-responses.js';
import type { JsExecuteContext, JsModel } from './js-model-module.js';
import type { SenderFinal, SenderResponse } from './channel-messages.js';
import { RunSenders } from './response-sender.js';

/** Where a run happens: the model, what responses are checked against, how to scrub messages. */
export interface RunContext {
  readonly model: JsModel;
  readonly rules: ResponseRules;
  /** e.g. `model "add" version 1`, for messages. */
  readonly label: string;
  readonly scrub: { readonly modelPath: string; readonly displayPath: string };
  /** execute()'s second argument (BLS). */
  readonly context: JsExecuteContext;
  /** Set for a decoupled model: its requests get senders, whose messages go here. */
  readonly decoupled?: { readonly post: (m: SenderResponse | SenderFinal) => void };
}

const now = (): bigint => process.hrtime.bigint();

export async function runJsModel(ctx: RunContext, req: RunRequest): Promise<RunResponse> {
  const t0 = now();
  const wanted = req.outputs.length > 0 ? req.outputs : ctx.rules.outputs.map((o) => o.name);
  let requests: JsRequest[];
  try {
    requests = buildRequests(req.inputs, req.members, wanted);
  } catch (e) {
    return { ok: false, error: toWireError(e, 'INTERNAL', ctx.scrub) };
  }
  const t1 = now();
  if (ctx.decoupled !== undefined) return runDecoupled(ctx, req, requests, wanted, t0, t1);
  let answers: unknown;
  try {
    answers = await ctx.model.execute(requests, ctx.context);
  } catch (e) {
    return { ok: false, error: modelError(ctx, 'execute() threw', e) };
  }
  const t2 = now();
  if (!Array.isArray(answers) || answers.length !== requests.length) {
    const got = Array.isArray(answers) ? `${answers.length} responses` : typeof answers;
    const message =
      `${ctx.label}: execute() must return one response per request (${requests.length}), ` +
      `got ${got}`;
    return { ok: false, error: { code: 'MODEL_EXECUTE_FAILED', message } };
  }
  const rows = req.members ?? (ctx.rules.batched ? [req.inputs[0]?.shape[0] ?? 0] : [undefined]);
  const checked: (CheckedResponse | WireError)[] = answers.map((answer: unknown, i) => {
    const which = requests.length > 1 ? `response ${i} of ${requests.length}` : 'the response';
    if (answer instanceof Error) return modelError(ctx, `${which} is an error`, answer);
    try {
      return checkResponse(answer, wanted, rows[i], ctx.rules);
    } catch (e) {
      const wire = toWireError(e, 'MODEL_EXECUTE_FAILED', ctx.scrub);
      return { code: wire.code, message: `${ctx.label}: ${which}: ${wire.message}` };
    }
  });
  let packed: ReturnType<typeof packResponses>;
  try {
    packed = packResponses(checked.map((c) => ('outputs' in c ? c : undefined)));
  } catch (e) {
    return { ok: false, error: toWireError(e, 'INTERNAL', ctx.scrub) };
  }
  const timing = {
    inputNs: Number(t1 - t0),
    inferNs: Number(t2 - t1),
    outputNs: Number(now() - t2),
  };
  if (req.members === undefined) {
    const only = checked[0];
    const outputs = packed[0];
    if (only === undefined || outputs === undefined) {
      return { ok: false, error: only !== undefined && 'code' in only ? only : internal() };
    }
    return { ok: true, outputs, timing };
  }
  const members = checked.map((c, i): MemberResult => {
    const outputs = packed[i];
    if ('code' in c || outputs === undefined)
      return { ok: false, error: 'code' in c ? c : internal() };
    return { ok: true, outputs };
  });
  return { ok: true, outputs: [], timing, members };
}

/**
 * A decoupled model's run: each request gets a `sender`; the responses travel on the channel as
 * they are sent, and the reply (every member answered, with no outputs) comes once every sender has
 * closed. execute() throwing answers each request still open with the error, then closes it.
 */
async function runDecoupled(
  ctx: RunContext,
  req: RunRequest,
  requests: readonly JsRequest[],
  wanted: readonly string[],
  t0: bigint,
  t1: bigint,
): Promise<RunResponse> {
  const post = ctx.decoupled?.post ?? (() => undefined);
  const batchRows = ctx.rules.batched ? (req.inputs[0]?.shape[0] ?? 0) : undefined;
  const rows = req.members ?? [batchRows];
  const senders = new RunSenders({
    run: req.run ?? 0,
    wanted,
    rows,
    rules: ctx.rules,
    post,
    modelError: (what, e) => modelError(ctx, what, e),
  });
  const withSenders = requests.map((r, i) => Object.freeze({ ...r, sender: senders.senders[i] }));
  try {
    await ctx.model.execute(withSenders, ctx.context);
  } catch (e) {
    senders.failOpen(modelError(ctx, 'execute() threw', e));
  }
  const t2 = now();
  await senders.closed();
  return {
    ok: true,
    outputs: [],
    timing: { inputNs: Number(t1 - t0), inferNs: Number(t2 - t1), outputNs: Number(now() - t2) },
    members: rows.map((): MemberResult => ({ ok: true, outputs: [] })),
  };
}

/** The model's own failure, with its message (paths scrubbed) and which call it came from. */
function modelError(ctx: RunContext, what: string, e: unknown): WireError {
  const raw = e instanceof Error ? e.message : String(e);
  return toWireError(new Error(`${ctx.label}: ${what}: ${raw}`), 'MODEL_EXECUTE_FAILED', ctx.scrub);
}

function internal(): WireError {
  return { code: 'INTERNAL', message: 'a JavaScript model response was lost while packing' };
}
