// The logging flags, Triton's: which records are written, in which format, to where.

import type { FlagTable } from './flag-spec.js';

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
