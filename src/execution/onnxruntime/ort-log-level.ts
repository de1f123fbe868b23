// ONNX Runtime's own log lines follow the server's log settings. ORT writes them itself, straight
// to stderr in its own colour-coded format (there is no callback to route them into ours), so the
// only control is its severity threshold, set on the process's ORT environment before the first
// session and on every session (`logSeverityLevel`, fixed when the session is created: a change
// at run time reaches the sessions created after it, i.e. models loaded or reloaded later).
//
//   server settings           ORT severity   what ORT prints
//   verbose 0                 3 error        errors only (warnings such as "Removing initializer"
//                                            are not printed raw at the default level)
//   verbose 0, log_error off  4 fatal        fatal only
//   verbose 1                 2 warning      warnings and errors (ORT's own default)
//   verbose 2                 1 info         + info
//   verbose >= 3              0 verbose      everything

import { env } from 'onnxruntime-node';
import type { LogSettings } from '../../logging/log-settings.js';

/** ORT's severities: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal. */
export type OrtLogSeverity = 0 | 1 | 2 | 3 | 4;

const ENV_LEVELS = Object.freeze(['verbose', 'info', 'warning', 'error', 'fatal'] as const);

export function ortLogSeverity(
  s: Pick<LogSettings, 'log_verbose_level' | 'log_error'>,
): OrtLogSeverity {
  if (s.log_verbose_level >= 3) return 0;
  if (s.log_verbose_level === 2) return 1;
  if (s.log_verbose_level === 1) return 2;
  return s.log_error ? 3 : 4;
}

/**
 * The threshold of this thread's ORT environment (`ort.env.logLevel`). onnxruntime-node reads it
 * when the thread creates its first session and the native environment is made once per process,
 * so it must be set before the first session anywhere (the main thread's probes and model reads).
 */
export function setOrtEnvLogLevel(severity: OrtLogSeverity): void {
  env.logLevel = ENV_LEVELS[severity];
}
