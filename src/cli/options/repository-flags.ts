// The model repository flags: where models live, how their configs are read and completed, and
// when models load (Triton's --model-control-mode).

import { fail } from '../../errors.js';
import { isValidModelName } from '../../repository/model-name.js';
import { MODEL_CONTROL_MODES, type ModelControlMode } from '../../repository/model-manager.js';
import type { FlagReader, FlagTable } from './flag-spec.js';
import { DEFAULT_OPTIONS, type ServerOptions } from './options-type.js';

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

type RepositoryOptions = Pick<
  ServerOptions,
  | 'modelRepositories'
  | 'backendConfig'
  | 'disableAutoCompleteConfig'
  | 'modelConfigName'
  | 'modelControlMode'
  | 'loadModels'
  | 'repositoryPollSecs'
>;

export function repositoryOptions(
  read: FlagReader<keyof typeof REPOSITORY_FLAGS>,
): RepositoryOptions {
  const mode = read.last('model-control-mode') ?? DEFAULT_OPTIONS.modelControlMode;
  if (!(MODEL_CONTROL_MODES as readonly string[]).includes(mode)) {
    throw fail(
      'BAD_REQUEST',
      `--model-control-mode: expected none, explicit or poll, got '${mode.slice(0, 64)}'`,
    );
  }
  const loadModels = read.all('load-model');
  for (const name of loadModels) {
    if (name !== '*' && !isValidModelName(name)) {
      throw fail(
        'BAD_REQUEST',
        `--load-model: '${name.slice(0, 200)}' is not a model name ([A-Za-z0-9_.-], 1-128 characters)`,
      );
    }
  }
  if (loadModels.includes('*') && loadModels.length > 1) {
    throw fail('BAD_REQUEST', '--load-model=* loads every model and must be the only --load-model');
  }
  if (loadModels.length > 0 && mode !== 'explicit') {
    read.warn(
      `--load-model is ignored with --model-control-mode=${mode}: every model loads at start`,
    );
  }
  if (read.has('repository-poll-secs') && mode !== 'poll') {
    read.warn(`--repository-poll-secs is ignored with --model-control-mode=${mode}`);
  }
  let disableAutoComplete = read.bool(
    'disable-auto-complete-config',
    DEFAULT_OPTIONS.disableAutoCompleteConfig,
  );
  if (read.has('strict-model-config')) {
    read.warn('--strict-model-config is deprecated; use --disable-auto-complete-config');
    if (read.bool('strict-model-config', false)) disableAutoComplete = true;
  }
  return {
    modelRepositories: Object.freeze([...read.all('model-repository'), ...read.all('model-store')]),
    backendConfig: Object.freeze([...read.all('backend-config')]),
    disableAutoCompleteConfig: disableAutoComplete,
    modelConfigName: modelConfigName(
      read.last('model-config-name') ?? DEFAULT_OPTIONS.modelConfigName,
    ),
    modelControlMode: mode as ModelControlMode,
    loadModels: Object.freeze([...loadModels]),
    repositoryPollSecs: read.positive(
      'repository-poll-secs',
      DEFAULT_OPTIONS.repositoryPollSecs,
      86_400,
    ),
  };
}

/** `--model-config-name`: a plain file name (no path), the stem of `configs/<name>.pbtxt`. */
function modelConfigName(v: string): string {
  if (v !== '' && !/^[A-Za-z0-9._-]{1,128}$/.test(v)) {
    throw fail(
      'BAD_REQUEST',
      `--model-config-name: expected a plain file name (letters, digits, '.', '_' or '-'), got '${v.slice(0, 128)}'`,
    );
  }
  if (v === '.' || v === '..') {
    throw fail('BAD_REQUEST', `--model-config-name: expected a plain file name, got '${v}'`);
  }
  return v;
}
