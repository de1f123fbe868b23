// The logging flags, Triton's: which records are written, in which format, to where.

import { fail } from '../../errors.js';
import { isLogFormat, LOG_FORMATS, type LogFormat } from '../../logging/log-settings.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

export const LOGGING_FLAGS = {
  'log-verbose': {
    kind: 'uint',
    help: "Verbose logging level; >= 1 logs debug records and ONNX Runtime's warnings (0)",
  },
  'log-info': { kind: 'bool', help: 'Write info records (true)' },
  'log-warning': { kind: 'bool', help: 'Write warning records (true)' },
  'log-error': { kind: 'bool', help: 'Write error records (true)' },
  'log-format': {
    kind: 'string',
    help: "json (one JSON object a line), default or ISO8601 (Triton's readable lines) (json)",
  },
  'log-file': { kind: 'string', help: 'Write the log to this file, appending, instead of stdout' },
} as const satisfies FlagTable;

type LoggingOptions = Pick<
  ServerOptions,
  'logVerbose' | 'logInfo' | 'logWarning' | 'logError' | 'logFormat' | 'logFile'
>;

export function loggingOptions(read: FlagReader<keyof typeof LOGGING_FLAGS>): LoggingOptions {
  return {
    logVerbose: read.uint('log-verbose', DEFAULT_OPTIONS.logVerbose),
    logInfo: read.bool('log-info', DEFAULT_OPTIONS.logInfo),
    logWarning: read.bool('log-warning', DEFAULT_OPTIONS.logWarning),
    logError: read.bool('log-error', DEFAULT_OPTIONS.logError),
    logFormat: logFormat(read.last('log-format') ?? DEFAULT_OPTIONS.logFormat),
    logFile: read.last('log-file') ?? DEFAULT_OPTIONS.logFile,
  };
}

function logFormat(value: string): LogFormat {
  if (isLogFormat(value)) return value;
  throw fail(
    'BAD_REQUEST',
    `--log-format: expected one of ${LOG_FORMATS.join(', ')}, got '${value}'`,
  );
}
