// The repository frames' one step on the data plane: an index, load or unload frame -> the data
// plane's call -> what the answer frame carries. A rejection is the caller's error frame.

import type { DataPlane } from '../dataplane/data-plane-api.js';
import type { RepositoryAnswer, RepositoryFrame } from './ws-frames.js';

/** The data-plane calls the repository frames make (the real `DataPlane` satisfies it). */
export type RepositoryPort = Pick<DataPlane, 'repositoryIndex' | 'loadModel' | 'unloadModel'>;

export async function runRepositoryFrame(
  plane: RepositoryPort,
  frame: RepositoryFrame,
): Promise<RepositoryAnswer> {
  switch (frame.kind) {
    case 'repository_index':
      return { kind: frame.kind, models: await plane.repositoryIndex(frame.readyOnly) };
    case 'model_load':
      await plane.loadModel(frame.model, frame.request);
      return { kind: frame.kind };
    case 'model_unload':
      await plane.unloadModel(frame.model, frame.request);
      return { kind: frame.kind };
  }
}
