// `--backend-config=[<backend>,]<setting>=<value>` flags -> the frozen settings the ONNX Runtime backend
// uses. As in Triton (core ResolveBackendConfigs), a setting without a backend name applies to every
// backend and a backend-specific one overrides it, whatever the flag order.

import { fail } from '../errors.js';
import { DEFAULT_MAX_BATCH_SIZE, ONNXRUNTIME_BACKEND } from './autocomplete.js';

export interface OnnxRuntimeBackendConfig {
  /** One ORT environment with global thread pools shared by every session (ORT backend README). */
  readonly enableGlobalThreadpool: boolean;
  /** Global pool sizes; only meaningful with enableGlobalThreadpool. Undefined = ORT's default. */
  readonly intraOpThreadCount?: number;
  readonly interOpThreadCount?: number;
  /** max_batch_size autocomplete writes for a batchable model (Triton default 4). */
  readonly defaultMaxBatchSize: number;
}

/** A setting infernode does not use: another backend's, or an unknown key. Worth a warning. */
export interface UnusedBackendSetting {
  readonly backend: string | undefined;
  readonly setting: string;
  readonly value: string;
  /** The flag as written, for messages. */
  readonly flag: string;
}

export interface BackendConfig {
  readonly onnxruntime: OnnxRuntimeBackendConfig;
  readonly unknown: readonly UnusedBackendSetting[];
}

const FLAG = '--backend-config=';
const FORMAT = "expected '[<backend name>,]<setting>=<value>'";

interface Setting {
  readonly backend: string | undefined;
  readonly setting: string;
  readonly value: string;
  readonly flag: string;
}

/**
 * Splits one flag value (with or without the `--backend-config=` prefix) into its settings.
 * Triton takes one `[<backend>,]<setting>=<value>` per flag; infernode also takes several settings
 * for one backend in one flag, `onnxruntime,enable-global-threadpool=1,intra_op_thread_count=4`
 * (the spelling these docs use), by splitting what follows the backend name on commas.
 */
function split(arg: string): Setting[] {
  const body = arg.startsWith(FLAG) ? arg.slice(FLAG.length) : arg;
  const flag = `${FLAG}${body}`;
  const eq = body.indexOf('=');
  const comma = body.indexOf(',');
  // A comma only names a backend when it comes before the first '='.
  const named = comma >= 0 && (eq < 0 || comma < eq);
  const backend = named ? body.slice(0, comma) : undefined;
  const rest = named ? body.slice(comma + 1) : body;
  // A comma starts another setting only when what follows it is `<setting>=...`; otherwise it is
  // part of the value (`some-list=a,b` keeps the value "a,b", as Triton reads it).
  const parts: string[] = [];
  for (const piece of rest.split(',')) {
    const last = parts.length - 1;
    if (last >= 0 && !/^[^=]+=/.test(piece)) parts[last] += `,${piece}`;
    else parts.push(piece);
  }
  return parts.map((part) => {
    const eq2 = part.indexOf('=');
    const setting = eq2 < 0 ? '' : part.slice(0, eq2);
    const value = eq2 < 0 ? '' : part.slice(eq2 + 1);
    if (backend === '' || setting === '' || value === '') {
      throw fail('CONFIG_INVALID', `invalid ${flag}: ${FORMAT}`);
    }
    return { backend, setting, value, flag };
  });
}

function bool(s: Setting): boolean {
  const v = s.value.toLowerCase();
  if (v === 'true' || v === 'on' || v === '1') return true;
  if (v === 'false' || v === 'off' || v === '0') return false;
  throw fail(
    'CONFIG_INVALID',
    `invalid ${s.flag}: ${s.setting} expects 0/1, true/false or on/off, got "${s.value}"`,
  );
}

function count(s: Setting): number {
  const n = /^\d{1,9}$/.test(s.value) ? Number(s.value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw fail(
      'CONFIG_INVALID',
      `invalid ${s.flag}: ${s.setting} expects an integer >= 0, got "${s.value}"`,
    );
  }
  return n;
}

const ORT_SETTINGS = new Set([
  'enable-global-threadpool',
  'intra_op_thread_count',
  'inter_op_thread_count',
  'default-max-batch-size',
]);

export function parseBackendConfig(flags: readonly string[]): BackendConfig {
  const settings = flags.flatMap(split);
  const unknown: UnusedBackendSetting[] = [];
  const ort = new Map<string, Setting>();
  // Global settings first, then onnxruntime's, so the specific one wins (Triton's resolution order).
  for (const scope of [undefined, ONNXRUNTIME_BACKEND]) {
    for (const s of settings) {
      if (s.backend !== scope) continue;
      if (ORT_SETTINGS.has(s.setting)) ort.set(s.setting, s);
      else unknown.push(s);
    }
  }
  for (const s of settings) {
    if (s.backend !== undefined && s.backend !== ONNXRUNTIME_BACKEND) unknown.push(s);
  }
  // Every onnxruntime-applicable occurrence is checked, not just the winner, so a typo never hides.
  for (const s of settings) {
    if (
      (s.backend === undefined || s.backend === ONNXRUNTIME_BACKEND) &&
      ORT_SETTINGS.has(s.setting)
    ) {
      if (s.setting === 'enable-global-threadpool') bool(s);
      else count(s);
    }
  }
  const get = (k: string): Setting | undefined => ort.get(k);
  const intra = get('intra_op_thread_count');
  const inter = get('inter_op_thread_count');
  const mbs = get('default-max-batch-size');
  const gtp = get('enable-global-threadpool');
  const onnxruntime: OnnxRuntimeBackendConfig = {
    enableGlobalThreadpool: gtp === undefined ? false : bool(gtp),
    ...(intra !== undefined && { intraOpThreadCount: count(intra) }),
    ...(inter !== undefined && { interOpThreadCount: count(inter) }),
    defaultMaxBatchSize: mbs === undefined ? DEFAULT_MAX_BATCH_SIZE : count(mbs),
  };
  return Object.freeze({
    onnxruntime: Object.freeze(onnxruntime),
    unknown: Object.freeze(unknown.map((s) => Object.freeze({ ...s }))),
  });
}
