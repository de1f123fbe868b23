// The ONNX Runtime backend's `--backend-config` settings (its README's names): the global thread
// pools shared by every session, and the max_batch_size its autocomplete writes. The flags' grammar
// and Triton's resolution (global, then `onnxruntime,` ones) are config/backend-config.ts's.

import {
  applicableSettings,
  resolveBackendSettings,
  settingBool,
  settingCount,
  type BackendConfig,
  type BackendSettingKeys,
} from '../../../config/backend-config.js';
import { DEFAULT_MAX_BATCH_SIZE, ONNXRUNTIME_BACKEND } from '../../../config/autocomplete.js';

export interface OnnxRuntimeBackendConfig {
  /** One ORT environment with global thread pools shared by every session (ORT backend README). */
  readonly enableGlobalThreadpool: boolean;
  /** Global pool sizes; only meaningful with enableGlobalThreadpool. Undefined = ORT's default. */
  readonly intraOpThreadCount?: number;
  readonly interOpThreadCount?: number;
  /** max_batch_size autocomplete writes for a batchable model (Triton default 4). */
  readonly defaultMaxBatchSize: number;
}

const GLOBAL_THREADPOOL = 'enable-global-threadpool';

/** The settings this backend reads, global or under its name. */
export const ORT_BACKEND_SETTINGS: BackendSettingKeys = Object.freeze({
  backend: ONNXRUNTIME_BACKEND,
  keys: new Set([
    GLOBAL_THREADPOOL,
    'intra_op_thread_count',
    'inter_op_thread_count',
    'default-max-batch-size',
  ]),
});

const read = new WeakMap<BackendConfig, OnnxRuntimeBackendConfig>();

/**
 * The ONNX Runtime backend's reading of the flags (CONFIG_INVALID quoting the flag for a bad value
 * in any occurrence that applies to it, not just the winner). Frozen; read once per flag set.
 */
export function readOrtBackendConfig(config: BackendConfig): OnnxRuntimeBackendConfig {
  const known = read.get(config);
  if (known !== undefined) return known;
  for (const s of applicableSettings(config, ORT_BACKEND_SETTINGS)) {
    if (s.setting === GLOBAL_THREADPOOL) settingBool(s);
    else settingCount(s);
  }
  const resolved = resolveBackendSettings(config, ORT_BACKEND_SETTINGS);
  const intra = resolved.get('intra_op_thread_count');
  const inter = resolved.get('inter_op_thread_count');
  const mbs = resolved.get('default-max-batch-size');
  const gtp = resolved.get(GLOBAL_THREADPOOL);
  const ort: OnnxRuntimeBackendConfig = Object.freeze({
    enableGlobalThreadpool: gtp === undefined ? false : settingBool(gtp),
    ...(intra !== undefined && { intraOpThreadCount: settingCount(intra) }),
    ...(inter !== undefined && { interOpThreadCount: settingCount(inter) }),
    defaultMaxBatchSize: mbs === undefined ? DEFAULT_MAX_BATCH_SIZE : settingCount(mbs),
  });
  read.set(config, ort);
  return ort;
}
