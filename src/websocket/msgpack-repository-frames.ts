// The msgpack repository frames, told apart from infer and cancel frames by their `type`
// (repository_index, model_load, model_unload): a decoded frame map -> RepositoryFrame, every field
// checked, naming what was expected and what arrived. File payloads are `bin`, kept as the infer
// path keeps tensor payloads (views of a stable frame, copies of a volatile one).

import { fail } from '../errors.js';
import { isJsonObject, own } from '../protocol/parameters.js';
import {
  readLoadParameters,
  UNLOAD_DEPENDENTS,
  wrongKind,
} from '../protocol/repository-parameters.js';
import { keepPayload, kindOf, requireModel, requireString } from './frame-fields.js';
import type { FrameId } from './frame-id.js';
import {
  REPOSITORY_FRAME_TYPES,
  SHARED_MEMORY_FRAME_TYPES,
  type RepositoryFrame,
} from './ws-frames.js';

type FrameMap = Record<string, unknown>;

/** The frame whose `type` is `type` (present: not an infer or cancel frame). */
export function repositoryFrame(
  doc: FrameMap,
  type: unknown,
  id: FrameId,
  volatile: boolean,
): RepositoryFrame {
  switch (type) {
    case 'repository_index': {
      const ready = own(doc, 'ready');
      if (ready !== undefined && typeof ready !== 'boolean') {
        throw fail('BAD_REQUEST', `frame 'ready' must be a boolean, got ${kindOf(ready)}`);
      }
      return { kind: 'repository_index', id, readyOnly: ready === true };
    }
    case 'model_load': {
      const model = requireModel(own(doc, 'model'));
      const params = parameters(own(doc, 'parameters'), 'load');
      const request = readLoadParameters(
        Object.keys(params).map((k) => [k, params[k]] as const),
        {
          config: (v) => {
            if (typeof v !== 'string') throw wrongKind('load', 'config', 'a str', kindOf(v));
            return v;
          },
          file: (v, key) => {
            if (!(v instanceof Uint8Array)) throw wrongKind('load', key, 'a bin', kindOf(v));
            return keepPayload(v, volatile);
          },
        },
      );
      return { kind: 'model_load', id, model, request };
    }
    case 'model_unload': {
      // Not whitelisted: an unload only looks the name up (Triton checks names on load alone).
      const model = requireString(own(doc, 'model'), "frame 'model'");
      const v = own(parameters(own(doc, 'parameters'), 'unload'), UNLOAD_DEPENDENTS);
      if (v !== undefined && typeof v !== 'boolean') {
        throw wrongKind('unload', UNLOAD_DEPENDENTS, 'a boolean', kindOf(v));
      }
      return { kind: 'model_unload', id, model, request: { unloadDependents: v === true } };
    }
    default:
      throw fail(
        'BAD_REQUEST',
        `frame 'type' must be one of ${[...REPOSITORY_FRAME_TYPES, ...SHARED_MEMORY_FRAME_TYPES]
          .map((t) => `'${t}'`)
          .join(', ')} ` +
          `(or absent, for infer and cancel frames), got ${
            typeof type === 'string' ? JSON.stringify(type.slice(0, 64)) : kindOf(type)
          }`,
      );
  }
}

/** A frame's `parameters` map (absent: none). */
function parameters(v: unknown, what: 'load' | 'unload'): FrameMap {
  if (v === undefined) return {};
  if (!isJsonObject(v) || v instanceof Uint8Array) {
    throw fail('BAD_PARAMETER', `${what} frame 'parameters' must be a map, got ${kindOf(v)}`);
  }
  return v;
}
