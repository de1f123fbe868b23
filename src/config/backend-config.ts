// `--backend-config=[<backend>,]<setting>=<value>` flags: their grammar and Triton's resolution
// (core ResolveBackendConfigs): a setting without a backend name applies to every backend and a
// backend-specific one overrides it, whatever the flag order. What a setting means is its backend's
// (the ONNX Runtime backend's reader is execution/onnxruntime/config/ort-backend-config.ts); the
// registry (repository/backends/registry.ts) says which settings no backend takes.

import { fail } from '../errors.js';

/** One setting of one flag. `backend` undefined: the flag named none (it applies to every backend). */
export interface BackendSetting {
  readonly backend: string | undefined;
  readonly setting: string;
  readonly value: string;
  /** The flag as written, for messages. */
  readonly flag: string;
}

/** Every setting of the `--backend-config` flags, in flag order; what each means is its backend's. */
export interface BackendConfig {
  readonly settings: readonly BackendSetting[];
}

/** The settings one backend reads: its registry name and the setting names it knows. */
export interface BackendSettingKeys {
  readonly backend: string;
  readonly keys: ReadonlySet<string>;
}

const FLAG = '--backend-config=';
const FORMAT = "expected '[<backend name>,]<setting>=<value>'";

/**
 * Splits one flag value (with or without the `--backend-config=` prefix) into its settings.
 * Triton takes one `[<backend>,]<setting>=<value>` per flag; infernode also takes several settings
 * for one backend in one flag, `onnxruntime,enable-global-threadpool=1,intra_op_thread_count=4`
 * (the spelling these docs use), by splitting what follows the backend name on commas.
 */
function split(arg: string): BackendSetting[] {
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

/** A 0/1, true/false or on/off setting; CONFIG_INVALID quoting the flag otherwise. */
export function settingBool(s: BackendSetting): boolean {
  const v = s.value.toLowerCase();
  if (v === 'true' || v === 'on' || v === '1') return true;
  if (v === 'false' || v === 'off' || v === '0') return false;
  throw fail(
    'CONFIG_INVALID',
    `invalid ${s.flag}: ${s.setting} expects 0/1, true/false or on/off, got "${s.value}"`,
  );
}

/** An integer >= 0 setting; CONFIG_INVALID quoting the flag otherwise. */
export function settingCount(s: BackendSetting): number {
  const n = /^\d{1,9}$/.test(s.value) ? Number(s.value) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw fail(
      'CONFIG_INVALID',
      `invalid ${s.flag}: ${s.setting} expects an integer >= 0, got "${s.value}"`,
    );
  }
  return n;
}

/** Splits the flags into their settings; CONFIG_INVALID quoting a malformed flag. Frozen. */
export function parseBackendConfig(flags: readonly string[]): BackendConfig {
  const settings = flags.flatMap(split).map((s) => Object.freeze(s));
  return Object.freeze({ settings: Object.freeze(settings) });
}

/**
 * Every occurrence of `keys` that applies to `backend` (global ones and its own), in flag order:
 * a reader checks each, not just the winner, so a typo never hides.
 */
export function applicableSettings(
  config: BackendConfig,
  { backend, keys }: BackendSettingKeys,
): readonly BackendSetting[] {
  return config.settings.filter(
    (s) => (s.backend === undefined || s.backend === backend) && keys.has(s.setting),
  );
}

/**
 * Triton's resolution for `backend`: the global settings first, then its own, so the specific one
 * wins whatever the flag order; within one scope the last wins.
 */
export function resolveBackendSettings(
  config: BackendConfig,
  reader: BackendSettingKeys,
): ReadonlyMap<string, BackendSetting> {
  const resolved = new Map<string, BackendSetting>();
  for (const scope of [undefined, reader.backend]) {
    for (const s of applicableSettings(config, reader)) {
      if (s.backend === scope) resolved.set(s.setting, s);
    }
  }
  return resolved;
}

/**
 * The settings no backend reads, worth a warning: global ones no backend knows, then those under a
 * backend's name it does not know (in `readers` order), then those naming another backend.
 */
export function unusedBackendSettings(
  config: BackendConfig,
  readers: readonly BackendSettingKeys[],
): readonly BackendSetting[] {
  const known = (s: BackendSetting): boolean =>
    readers.some(
      (r) => (s.backend === undefined || s.backend === r.backend) && r.keys.has(s.setting),
    );
  const unused = config.settings.filter((s) => !known(s));
  const rank = (s: BackendSetting): number => {
    if (s.backend === undefined) return -1;
    const i = readers.findIndex((r) => r.backend === s.backend);
    return i < 0 ? readers.length : i;
  };
  return unused
    .map((s, i) => ({ s, i }))
    .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
    .map(({ s }) => s);
}
