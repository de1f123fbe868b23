// RepositoryIndex, RepositoryModelLoad and RepositoryModelUnload requests -> the data plane's
// arguments, as Triton's grpc_server.cc reads them: `config` a string_param, `file:` keys
// bytes_params, `unload_dependents` a bool_param, and no repository_name (UNIMPLEMENTED).

import type { ModelLoadRequest, ModelUnloadRequest } from '../dataplane/data-plane-api.js';
import {
  readLoadParameters,
  repositoryNameRefused,
  UNLOAD_DEPENDENTS,
  wrongKind,
} from '../protocol/repository-parameters.js';
import { assertValidModelName } from '../repository/model-name.js';

/** `ModelRepositoryParameter` as proto-loader builds it (`oneofs: true` names the member set). */
export interface RepositoryParameter {
  readonly parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'bytes_param';
  readonly bool_param?: boolean;
  readonly string_param?: string;
  readonly bytes_param?: Uint8Array;
}

export interface RepositoryIndexRequest {
  readonly repository_name: string;
  readonly ready: boolean;
}

export interface RepositoryControlRequest {
  readonly repository_name: string;
  readonly model_name: string;
  readonly parameters: Readonly<Record<string, RepositoryParameter>>;
}

/** Which member of the oneof arrived, for messages. */
function kind(p: RepositoryParameter): string {
  return p.parameter_choice === undefined ? 'no value' : `a ${p.parameter_choice}`;
}

function entries(
  params: Readonly<Record<string, RepositoryParameter>>,
): [string, RepositoryParameter][] {
  return Object.keys(params).map((k) => [k, params[k] as RepositoryParameter]);
}

/** `ready`: list only READY models. */
export function decodeIndexRequest(req: RepositoryIndexRequest): boolean {
  if (req.repository_name !== '') throw repositoryNameRefused();
  return req.ready;
}

export function decodeLoadRequest(req: RepositoryControlRequest): {
  name: string;
  request: ModelLoadRequest;
} {
  if (req.repository_name !== '') throw repositoryNameRefused();
  assertValidModelName(req.model_name);
  const request = readLoadParameters(entries(req.parameters), {
    config: (p) => {
      if (p.parameter_choice !== 'string_param') {
        throw wrongKind('load', 'config', 'a string_param', kind(p));
      }
      return p.string_param ?? '';
    },
    file: (p, key) => {
      if (p.parameter_choice !== 'bytes_param') {
        throw wrongKind('load', key, 'a bytes_param', kind(p));
      }
      return p.bytes_param ?? new Uint8Array(0);
    },
  });
  return { name: req.model_name, request };
}

/**
 * The model name is not checked against the whitelist: unload only looks a name up, and Triton
 * applies its traversal check to load alone. Parameters other than unload_dependents are ignored.
 */
export function decodeUnloadRequest(req: RepositoryControlRequest): {
  name: string;
  request: ModelUnloadRequest;
} {
  if (req.repository_name !== '') throw repositoryNameRefused();
  const p = Object.hasOwn(req.parameters, UNLOAD_DEPENDENTS)
    ? req.parameters[UNLOAD_DEPENDENTS]
    : undefined;
  if (p === undefined) return { name: req.model_name, request: { unloadDependents: false } };
  if (p.parameter_choice !== 'bool_param') {
    throw wrongKind('unload', UNLOAD_DEPENDENTS, 'a bool_param', kind(p));
  }
  return { name: req.model_name, request: { unloadDependents: p.bool_param === true } };
}
