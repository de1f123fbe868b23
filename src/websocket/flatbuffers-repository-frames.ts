// The FlatBuffers repository frames (ClientFrame.repository_index, model_load, model_unload) and
// their answers (ServerFrame.type, and .models for the index), read with the same bounds checks as
// infer frames. Model files arrive as typed ModelFile tables, so only the key rules are Triton's.

import { Builder, type Offset } from 'flatbuffers';
import {
  ModelIndex,
  ServerFrame,
  type ClientFrame,
  type ModelLoad,
  type ModelUnload,
  type RepositoryIndex,
} from '../../schemas/generated/infernode-ws_generated.js';
import { fail } from '../errors.js';
import { FILE_PREFIX, readLoadParameters, wrongKind } from '../protocol/repository-parameters.js';
import { checkByteVector, checkCount } from './flatbuffers-bounds.js';
import { keepPayload, requireModel, requireString } from './frame-fields.js';
import type { FrameId } from './frame-id.js';
import type { RepositoryAnswer, RepositoryFrame } from './ws-frames.js';

export type RepositoryTable =
  | { readonly kind: 'repository_index'; readonly table: RepositoryIndex }
  | { readonly kind: 'model_load'; readonly table: ModelLoad }
  | { readonly kind: 'model_unload'; readonly table: ModelUnload };

/** The repository tables a ClientFrame sets (the caller refuses a frame that sets more than one). */
export function repositoryTables(root: ClientFrame): RepositoryTable[] {
  const set: RepositoryTable[] = [];
  const index = root.repositoryIndex();
  if (index !== null) set.push({ kind: 'repository_index', table: index });
  const load = root.modelLoad();
  if (load !== null) set.push({ kind: 'model_load', table: load });
  const unload = root.modelUnload();
  if (unload !== null) set.push({ kind: 'model_unload', table: unload });
  return set;
}

export function repositoryTableId(t: RepositoryTable): string | null {
  return t.table.id();
}

/** ModelFile.data is field 1: vtable slot 4 + 2 * 1, the offset the generated dataArray() reads. */
const MODEL_FILE_DATA_FIELD = 6;

export function readRepositoryFrame(
  t: RepositoryTable,
  id: FrameId,
  frame: Uint8Array,
  volatile: boolean,
): RepositoryFrame {
  switch (t.kind) {
    case 'repository_index':
      return { kind: 'repository_index', id, readyOnly: t.table.ready() };
    case 'model_load':
      return { kind: 'model_load', id, ...readModelLoad(t.table, frame, volatile) };
    case 'model_unload':
      return {
        kind: 'model_unload',
        id,
        // Not whitelisted: an unload only looks the name up (Triton checks names on load alone).
        model: requireString(t.table.model(), "frame 'model'"),
        request: { unloadDependents: t.table.unloadDependents() },
      };
  }
}

function readModelLoad(
  t: ModelLoad,
  frame: Uint8Array,
  volatile: boolean,
): Pick<Extract<RepositoryFrame, { kind: 'model_load' }>, 'model' | 'request'> {
  const model = requireModel(t.model());
  const entries: [string, string | Uint8Array][] = [];
  const config = t.config();
  if (config !== null) entries.push(['config', config]);
  const count = t.filesLength();
  checkCount(count, 4, frame, 'files');
  for (let i = 0; i < count; i++) {
    const f = t.files(i);
    const path = f?.path();
    if (f === null || typeof path !== 'string')
      throw fail('BAD_REQUEST', `files[${i}] has no path`);
    checkByteVector(f, MODEL_FILE_DATA_FIELD, `file '${path.slice(0, 128)}' data`, frame);
    entries.push([
      `${FILE_PREFIX}${path}`,
      keepPayload(f.dataArray() ?? new Uint8Array(0), volatile),
    ]);
  }
  // The schema types each field, so the kinds always fit; the key rules are what is checked.
  const request = readLoadParameters(entries, {
    config: (v) => {
      if (typeof v !== 'string') throw wrongKind('load', 'config', 'a string', 'bytes');
      return v;
    },
    file: (v, key) => {
      if (typeof v === 'string') throw wrongKind('load', key, 'bytes', 'a string');
      return v;
    },
  });
  return { model, request };
}

/** `id` and `type`, and for the index `models`: one ModelIndex per row, absent fields left out. */
export function encodeFlatbuffersRepositoryAnswer(
  id: FrameId,
  answer: RepositoryAnswer,
): Uint8Array {
  const b = new Builder(256);
  const optional = (s: string | undefined): Offset => (s === undefined ? 0 : b.createString(s));
  let models: Offset = 0;
  if (answer.kind === 'repository_index') {
    const rows = answer.models.map((m) =>
      ModelIndex.createModelIndex(
        b,
        b.createString(m.name),
        optional(m.version),
        optional(m.state),
        optional(m.reason),
      ),
    );
    models = ServerFrame.createModelsVector(b, rows);
  }
  const type = b.createString(answer.kind);
  const idOffset = b.createString(String(id.key));
  ServerFrame.startServerFrame(b);
  ServerFrame.addId(b, idOffset);
  ServerFrame.addType(b, type);
  if (models !== 0) ServerFrame.addModels(b, models);
  b.finish(ServerFrame.endServerFrame(b));
  return b.asUint8Array();
}
