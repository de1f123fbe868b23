// The model repository flags: where models live, how their configs are read and completed, and
// when models load (Triton's --model-control-mode).

import type { FlagTable } from './flag-spec.js';

export const REPOSITORY_FLAGS = {
  'model-repository': {
    kind: 'string',
    repeat: true,
    help: 'Model repository path (repeatable). Alias: --model-store',
  },
  'model-store': { kind: 'string', repeat: true, help: 'Alias of --model-repository' },
  'backend-config': {
    kind: 'string',
    repeat: true,
    help: '[<backend>,]<key>=<value>, e.g. onnxruntime,default-max-batch-size=8',
  },
  'disable-auto-complete-config': {
    kind: 'flag',
    help: 'Do not complete configs from the ONNX model',
  },
  'model-config-name': {
    kind: 'string',
    help: 'Use configs/<name>.pbtxt instead of config.pbtxt in models that have it',
  },
  'strict-model-config': {
    kind: 'bool',
    help: 'Deprecated: true = --disable-auto-complete-config',
  },
  'model-control-mode': {
    kind: 'string',
    help: 'none | explicit | poll: load every model at start; load with the API; rescan (none)',
  },
  'repository-poll-secs': {
    kind: 'uint',
    help: 'Seconds between repository scans in poll mode (15)',
  },
  'load-model': {
    kind: 'string',
    repeat: true,
    help: 'Model to load at start in explicit mode (repeatable; * loads every model)',
  },
} as const satisfies FlagTable;
