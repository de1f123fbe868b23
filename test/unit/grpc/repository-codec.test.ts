// The repository RPCs' requests as grpc_server.cc reads them: repository_name refused, `config` a
// string_param, `file:` keys bytes_params, unknown keys refused, files needing a config, and
// `unload_dependents` a bool_param (other unload parameters ignored); load names whitelisted, unload
// names not.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeIndexRequest,
  decodeLoadRequest,
  decodeUnloadRequest,
  type RepositoryParameter,
} from '../../../src/grpc/repository-codec.js';
import { throwsCode } from '../protocol/expect-error.js';

const CONFIG = '{"name":"m"}';
const str = (v: string): RepositoryParameter => ({
  parameter_choice: 'string_param',
  string_param: v,
});
const bytes = (v: Uint8Array): RepositoryParameter => ({
  parameter_choice: 'bytes_param',
  bytes_param: v,
});
const bool = (v: boolean): RepositoryParameter => ({
  parameter_choice: 'bool_param',
  bool_param: v,
});

const control = (parameters: Record<string, RepositoryParameter>, model_name = 'm') => ({
  repository_name: '',
  model_name,
  parameters,
});

const NO_REPOSITORY = "'repository_name' specification is not supported";

void describe('gRPC RepositoryIndex', () => {
  void it('ready passes through; a repository_name is UNSUPPORTED, as in Triton', () => {
    assert.equal(decodeIndexRequest({ repository_name: '', ready: true }), true);
    assert.equal(decodeIndexRequest({ repository_name: '', ready: false }), false);
    throwsCode(
      () => decodeIndexRequest({ repository_name: 'r', ready: false }),
      'UNSUPPORTED',
      NO_REPOSITORY,
    );
  });
});

void describe('gRPC RepositoryModelLoad', () => {
  void it('no parameters; config; config with files', () => {
    assert.deepEqual(decodeLoadRequest(control({})), { name: 'm', request: { files: new Map() } });
    assert.deepEqual(decodeLoadRequest(control({ config: str(CONFIG) })).request, {
      config: CONFIG,
      files: new Map(),
    });
    const file = Uint8Array.of(9, 8, 7);
    assert.deepEqual(
      decodeLoadRequest(control({ config: str(CONFIG), 'file:1/model.onnx': bytes(file) })).request,
      { config: CONFIG, files: new Map([['1/model.onnx', file]]) },
    );
  });

  void it('wrong kinds: INVALID_ARGUMENT naming the key and both kinds', () => {
    throwsCode(
      () => decodeLoadRequest(control({ config: bytes(Uint8Array.of(1)) })),
      'BAD_PARAMETER',
      "load parameter 'config' must be a string_param, got a bytes_param",
    );
    throwsCode(
      () => decodeLoadRequest(control({ config: str(CONFIG), 'file:1/m': str('AAAA') })),
      'BAD_PARAMETER',
      "load parameter 'file:1/m' must be a bytes_param, got a string_param",
    );
    throwsCode(
      () => decodeLoadRequest(control({ config: {} })),
      'BAD_PARAMETER',
      "load parameter 'config' must be a string_param, got no value",
    );
  });

  void it('unknown keys and files without config are refused', () => {
    throwsCode(
      () => decodeLoadRequest(control({ dependents: bool(true) })),
      'BAD_PARAMETER',
      "unrecognized load parameter 'dependents': expected 'config' or 'file:<version>/<name>'",
    );
    throwsCode(
      () => decodeLoadRequest(control({ 'file:1/m': bytes(Uint8Array.of(1)) })),
      'BAD_PARAMETER',
      /^Load parameter 'config' must be specified for model file override/,
    );
  });

  void it('the model name is whitelisted; a repository_name is UNSUPPORTED', () => {
    for (const name of ['', '..', '../etc', 'a/b']) {
      throwsCode(() => decodeLoadRequest(control({}, name)), 'BAD_MODEL_NAME');
    }
    throwsCode(
      () => decodeLoadRequest({ ...control({}), repository_name: 'r' }),
      'UNSUPPORTED',
      NO_REPOSITORY,
    );
  });
});

void describe('gRPC RepositoryModelUnload', () => {
  void it('unload_dependents as a bool_param; other parameters ignored', () => {
    assert.deepEqual(decodeUnloadRequest(control({})), {
      name: 'm',
      request: { unloadDependents: false },
    });
    assert.deepEqual(
      decodeUnloadRequest(control({ unload_dependents: bool(true), other: str('x') })).request,
      { unloadDependents: true },
    );
  });

  void it('unload_dependents of another kind: INVALID_ARGUMENT', () => {
    throwsCode(
      () => decodeUnloadRequest(control({ unload_dependents: str('true') })),
      'BAD_PARAMETER',
      "unload parameter 'unload_dependents' must be a bool_param, got a string_param",
    );
  });

  void it('names are not whitelisted (unload only looks a name up); repository_name refused', () => {
    assert.equal(decodeUnloadRequest(control({}, '../etc')).name, '../etc');
    throwsCode(
      () => decodeUnloadRequest({ ...control({}), repository_name: 'r' }),
      'UNSUPPORTED',
      NO_REPOSITORY,
    );
  });
});
