// Triton's repository-API parameters as every transport carries them: the load keys (`config`,
// `file:<version>/<name>`), the rule that files need a config, `unload_dependents`, and the refusals,
// worded once. Each transport reads its own value kinds (JSON, gRPC oneofs, msgpack, FlatBuffers).

import { fail, type InferenceServerError } from '../errors.js';

/** The load parameters, decoded: structurally the data plane's ModelLoadRequest. */
export interface LoadParameters {
  /** The JSON text of a ModelConfig, used instead of config.pbtxt. */
  readonly config?: string;
  /** Model file bytes by the path after `file:` (e.g. `1/model.onnx`); never empty without `config`. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

export const FILE_PREFIX = 'file:';

/** How one transport turns a parameter's value into text or bytes, refusing any other kind. */
export interface LoadValueReader<V> {
  /** `config`'s text; throws (wrongKind) when the value is not text. */
  config(value: V): string;
  /** A `file:` parameter's bytes; throws (wrongKind) naming `key` when the value has none. */
  file(value: V, key: string): Uint8Array;
}

/** A key as messages quote it: cut, so a megabyte key does not become a megabyte message. */
export function showKey(key: string): string {
  return `'${key.length > 128 ? `${key.slice(0, 128)}...` : key}'`;
}

/** `load parameter 'config' must be a string, got the number 5`. */
export function wrongKind(
  what: 'load' | 'unload',
  key: string,
  expected: string,
  got: string,
): InferenceServerError {
  return fail('BAD_PARAMETER', `${what} parameter ${showKey(key)} must be ${expected}, got ${got}`);
}

/**
 * Reads load parameters. Unknown keys are refused, as Triton does (its gRPC front end with
 * "unrecognized load parameter", its core for any transport); a `file:` key twice (possible only
 * where the encoding has lists, not maps) is refused; files without `config` are refused with
 * Triton's message, since a model directory built from uploaded files has no config.pbtxt.
 */
export function readLoadParameters<V>(
  entries: Iterable<readonly [string, V]>,
  reader: LoadValueReader<V>,
): LoadParameters {
  let config: string | undefined;
  const files = new Map<string, Uint8Array>();
  for (const [key, value] of entries) {
    if (key === 'config') {
      config = reader.config(value);
    } else if (key.startsWith(FILE_PREFIX)) {
      const path = key.slice(FILE_PREFIX.length);
      if (files.has(path)) {
        throw fail('BAD_PARAMETER', `load parameter ${showKey(key)} appears more than once`);
      }
      files.set(path, reader.file(value, key));
    } else {
      throw fail(
        'BAD_PARAMETER',
        `unrecognized load parameter ${showKey(key)}: expected 'config' or ` +
          `'${FILE_PREFIX}<version>/<name>'`,
      );
    }
  }
  if (files.size > 0 && config === undefined) {
    throw fail(
      'BAD_PARAMETER',
      "Load parameter 'config' must be specified for model file override: got " +
        `${files.size} '${FILE_PREFIX}' parameter${files.size === 1 ? '' : 's'} and no 'config'`,
    );
  }
  return config === undefined ? { files } : { config, files };
}

/** The unload parameter Triton reads; other unload parameters are ignored, as Triton does. */
export const UNLOAD_DEPENDENTS = 'unload_dependents';

/** Triton's refusal of a load or unload naming a repository: it serves its repositories as one. */
export function repositoryNameRefused(): InferenceServerError {
  return fail('UNSUPPORTED', "'repository_name' specification is not supported");
}
