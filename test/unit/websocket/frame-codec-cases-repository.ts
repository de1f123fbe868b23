// Frame-codec cases for the repository frames (index, load, unload) and their answers: what each
// decodes to, the load rules every encoding shares (whitelisted names, files need a config), the
// unload name left unchecked, file payload ownership, and the answer frames with their ids.

import assert from 'node:assert/strict';
import type { RepositoryIndexEntry } from '../../../src/dataplane/data-plane-api.js';
import type { ClientFrame } from '../../../src/websocket/ws-frames.js';
import {
  assertRefused,
  fid,
  idValue,
  type CodecUnderTest,
  type FrameCase,
  type RepositorySpec,
} from './frame-codec-case.js';

const CONFIG = '{"name":"m","platform":"onnxruntime_onnx"}';

function decoded(impl: CodecUnderTest, spec: RepositorySpec, volatile = false): ClientFrame {
  const r = impl.codec.decode(impl.encodeRepository(spec), volatile);
  assert.ok(r.ok, r.ok ? '' : `refused: ${r.error.code} ${r.error.message}`);
  assert.equal(r.frame.kind, spec.type);
  assert.equal(idValue(r.frame.id), impl.wireId(spec.id));
  return r.frame;
}

const ROWS: RepositoryIndexEntry[] = [
  { name: 'simple', version: '1', state: 'READY', reason: '' },
  { name: 'broken', state: 'UNAVAILABLE', reason: 'config.pbtxt: syntax error at 3:1' },
  { name: 'never_loaded' },
];

export const REPOSITORY_CASES: readonly FrameCase[] = [
  {
    id: 'repository.index',
    title: 'decodes index frames, with and without the ready filter',
    run(impl) {
      for (const [ready, readyOnly] of [
        [undefined, false],
        [false, false],
        [true, true],
      ] as const) {
        const frame = decoded(impl, {
          type: 'repository_index',
          id: 'ix',
          ...(ready !== undefined && { ready }),
        });
        assert.deepEqual(frame, { kind: 'repository_index', id: frame.id, readyOnly });
      }
    },
  },
  {
    id: 'repository.load',
    title: 'decodes load frames: the model, the config and the files by path',
    run(impl) {
      const empty = decoded(impl, { type: 'model_load', id: 1, model: 'm' });
      assert.deepEqual(empty, {
        kind: 'model_load',
        id: empty.id,
        model: 'm',
        request: { files: new Map() },
      });
      const frame = decoded(impl, {
        type: 'model_load',
        id: 2,
        model: 'a-b_c.d',
        config: CONFIG,
        files: [
          ['1/model.onnx', Uint8Array.of(1, 2, 3)],
          ['2/model.onnx', new Uint8Array(0)],
        ],
      });
      assert.ok(frame.kind === 'model_load');
      assert.equal(frame.model, 'a-b_c.d');
      assert.equal(frame.request.config, CONFIG);
      assert.deepEqual(
        [...frame.request.files].map(([path, bytes]) => [path, [...bytes]]),
        [
          ['1/model.onnx', [1, 2, 3]],
          ['2/model.onnx', []],
        ],
      );
    },
  },
  {
    id: 'repository.load-refusals',
    title: 'refuses a load of a name outside the whitelist, and files without a config',
    run(impl) {
      assertRefused(
        impl.codec.decode(impl.encodeRepository({ type: 'model_load', id: 3, model: '..' }), true),
        impl.wireId(3),
        'BAD_MODEL_NAME',
        'invalid model name "..": expected 1-128 characters of [A-Za-z0-9_.-], not "." or ".."',
      );
      assertRefused(
        impl.codec.decode(
          impl.encodeRepository({
            type: 'model_load',
            id: 4,
            model: 'm',
            files: [['1/model.onnx', Uint8Array.of(1)]],
          }),
          true,
        ),
        impl.wireId(4),
        'BAD_PARAMETER',
        "Load parameter 'config' must be specified for model file override: got 1 'file:' " +
          "parameter and no 'config'",
      );
    },
  },
  {
    id: 'repository.load-file-ownership',
    title: 'copies file payloads out of volatile frame memory and views stable frames',
    run(impl) {
      const file = (volatile: boolean): { frame: Uint8Array; bytes: Uint8Array } => {
        const spec: RepositorySpec = {
          type: 'model_load',
          id: 5,
          model: 'm',
          config: CONFIG,
          files: [['1/model.onnx', Uint8Array.of(7, 7, 7, 7)]],
        };
        const frame = impl.encodeRepository(spec);
        const r = impl.codec.decode(frame, volatile);
        assert.ok(r.ok && r.frame.kind === 'model_load');
        return { frame, bytes: r.frame.request.files.get('1/model.onnx') as Uint8Array };
      };
      const copied = file(true);
      const viewed = file(false);
      copied.frame.fill(0); // what uWS does to the message memory after the callback
      viewed.frame.fill(0);
      assert.deepEqual([...copied.bytes], [7, 7, 7, 7]);
      assert.deepEqual([...viewed.bytes], [0, 0, 0, 0]);
    },
  },
  {
    id: 'repository.unload',
    title: 'decodes unload frames; the name is not whitelisted (an unload only looks it up)',
    run(impl) {
      for (const [unloadDependents, expected] of [
        [undefined, false],
        [true, true],
      ] as const) {
        const frame = decoded(impl, {
          type: 'model_unload',
          id: 'u',
          model: '../etc',
          ...(unloadDependents !== undefined && { unloadDependents }),
        });
        assert.deepEqual(frame, {
          kind: 'model_unload',
          id: frame.id,
          model: '../etc',
          request: { unloadDependents: expected },
        });
      }
    },
  },
  {
    id: 'reply.repository-index',
    title: 'sends the index rows with absent fields left out, echoing the id',
    run(impl) {
      const reply = impl.readReply(
        impl.codec.encodeRepositoryAnswer(fid('ix'), { kind: 'repository_index', models: ROWS }),
      );
      assert.deepEqual(reply, { id: 'ix', type: 'repository_index', models: ROWS });
      const none = impl.readReply(
        impl.codec.encodeRepositoryAnswer(fid(2), { kind: 'repository_index', models: [] }),
      );
      assert.deepEqual(none, { id: impl.wireId(2), type: 'repository_index', models: [] });
    },
  },
  {
    id: 'reply.repository-load-unload',
    title: 'answers a load or unload with its type and id only',
    run(impl) {
      for (const kind of ['model_load', 'model_unload'] as const) {
        const reply = impl.readReply(impl.codec.encodeRepositoryAnswer(fid(7), { kind }));
        assert.deepEqual(reply, { id: impl.wireId(7), type: kind });
      }
    },
  },
];
