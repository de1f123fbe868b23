// The user's model module: imported from its file URL inside the instance's worker, and shaped into
// one `JsModel` whatever form it takes — named exports `initialize` / `execute` / `finalize`, a
// default-exported object with those methods, or a default-exported class (constructed once per
// instance, like Triton's `TritonPythonModel`). Only `execute` is required.

import { pathToFileURL } from 'node:url';
import { fail } from '../../errors.js';
import type { BlsFunctions } from './bls-client.js';
import type { JsRequest } from './js-requests.js';

/** What initialize() receives: Triton's Python backend `args`, with the config as an object. */
export interface JsInitializeArgs {
  /** The model's config as `/v2/models/<m>/config` prints it (an object, not a JSON string). */
  readonly model_config: Readonly<Record<string, unknown>>;
  readonly model_name: string;
  readonly model_version: number;
  /** Triton-style: `<group>` or `<group>_<k>` when the group has several instances. */
  readonly model_instance_name: string;
  readonly model_instance_kind: 'CPU';
  readonly model_instance_device_id: 0;
  /** The model directory, `<repository>/<model>` (as Triton's Python backend names it). */
  readonly model_repository: string;
  /** BLS, for warm-up calls: the same function as execute()'s `context.infer`. */
  readonly infer: BlsFunctions['infer'];
  readonly inferStream: BlsFunctions['inferStream'];
}

/** execute()'s second argument: BLS calls on any loaded model, through the data plane. */
export type JsExecuteContext = BlsFunctions;

/** The model, bound: every method callable as `model.method(...)`. */
export interface JsModel {
  initialize(args: JsInitializeArgs): unknown;
  execute(requests: readonly JsRequest[], context: JsExecuteContext): unknown;
  finalize(): unknown;
}

type Exports = Record<string, unknown>;

const isFunction = (v: unknown): v is (...args: unknown[]) => unknown => typeof v === 'function';

/** Imports `file` and finds its model; MODEL_LOAD_FAILED says which shapes were looked for. */
export async function importModel(file: string, shownAs: string): Promise<JsModel> {
  let mod: Exports;
  try {
    mod = (await import(pathToFileURL(file).href)) as Exports;
  } catch (e) {
    const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    throw fail('MODEL_LOAD_FAILED', `cannot import ${shownAs}: ${why}`);
  }
  const target = modelObject(mod);
  if (target === undefined) {
    const names = Object.keys(mod).join(', ') || 'nothing';
    throw fail(
      'MODEL_LOAD_FAILED',
      `${shownAs} must export an execute(requests) function (named exports, a default object, or ` +
        `a default class), but it exports ${names}`,
    );
  }
  const call =
    (name: string) =>
    (...args: unknown[]): unknown => {
      const fn = target[name];
      return isFunction(fn) ? fn.apply(target, args) : undefined;
    };
  return { initialize: call('initialize'), execute: call('execute'), finalize: call('finalize') };
}

/** The object holding the methods: the module, its default object, or an instance of its class. */
function modelObject(mod: Exports): Exports | undefined {
  if (isFunction(mod.execute)) return mod;
  const d = mod.default;
  if (isFunction(d) && isFunction((d.prototype as Exports | undefined)?.execute)) {
    return new (d as unknown as new () => Exports)();
  }
  if (typeof d === 'object' && d !== null && isFunction((d as Exports).execute)) {
    return d as Exports;
  }
  return undefined;
}
