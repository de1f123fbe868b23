// The model configs the streams bench serves, each in its own temporary repository holding one
// model: the shipped `silero_vad` (oldest strategy) and the fixture `silero_vad_direct` (direct),
// plus variants of the shipped config that a user could make, each a set of textual edits of
// config.pbtxt. The weights are symlinked, never copied.

import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../options/usage-error.js';
import { DEFAULT_MODEL_REPOSITORY, REPO_ROOT } from '../paths.js';

interface ConfigVariant {
  readonly label: string;
  /** The model directory the config and weights come from. */
  readonly source: string;
  /** [searched text, replacement] pairs applied to the source config, each required to match. */
  readonly edits: readonly (readonly [string, string])[];
}

const OLDEST = path.join(DEFAULT_MODEL_REPOSITORY, 'silero_vad');
const DIRECT = path.join(REPO_ROOT, 'test', 'fixtures', 'repository', 'silero_vad_direct');
const DELAY = 'max_queue_delay_microseconds: 2000';
const CANDIDATES = 'max_candidate_sequences: 64';
/**
 * The oldest strategy runs at most max_candidate_sequences sequences at once; a stream beyond
 * them waits for a running sequence to end (seconds of audio), so the variants past the shipped
 * config raise it well above any stream count the machine can carry.
 */
const MANY: readonly [string, string] = [CANDIDATES, 'max_candidate_sequences: 1024'];
/** An ORT backend parameter, as config.pbtxt writes it. */
const param = (key: string, value: string): string =>
  `parameters { key: "${key}" value: { string_value: "${value}" } }`;

export const CONFIG_VARIANTS: Readonly<Record<string, ConfigVariant>> = {
  oldest: { label: 'oldest (shipped silero_vad)', source: OLDEST, edits: [] },
  direct: { label: 'direct (fixture silero_vad_direct)', source: DIRECT, edits: [] },
  'oldest-c1024': {
    label: 'oldest, 1024 candidates',
    source: OLDEST,
    edits: [MANY],
  },
  'oldest-c1024-delay0': {
    label: 'oldest, 1024 candidates, max_queue_delay 0',
    source: OLDEST,
    edits: [MANY, [DELAY, 'max_queue_delay_microseconds: 0']],
  },
  'oldest-c1024-delay8ms': {
    label: 'oldest, 1024 candidates, max_queue_delay 8 ms',
    source: OLDEST,
    edits: [MANY, [DELAY, 'max_queue_delay_microseconds: 8000']],
  },
  'oldest-c1024-no-preferred': {
    label: 'oldest, 1024 candidates, no preferred_batch_size',
    source: OLDEST,
    edits: [MANY, ['preferred_batch_size: [ 16, 32, 64 ] ', '']],
  },
  'oldest-c1024-nospin': {
    label: 'oldest, 1024 candidates, intra_op_spinning 0',
    source: OLDEST,
    edits: [MANY, ['instance_group [', `${param('intra_op_spinning', '0')}\ninstance_group [`]],
  },
  'oldest-c1024-1-thread': {
    label: 'oldest, 1024 candidates, intra_op_thread_count 1',
    source: OLDEST,
    edits: [MANY, ['instance_group [', `${param('intra_op_thread_count', '1')}\ninstance_group [`]],
  },
  'oldest-c1024-2-instances': {
    label: 'oldest, 1024 candidates, 2 instances',
    source: OLDEST,
    edits: [MANY, ['count: 1', 'count: 2']],
  },
  'oldest-c1024-batch128': {
    label: 'oldest, 1024 candidates, max_batch_size 128',
    source: OLDEST,
    edits: [
      MANY,
      ['max_batch_size: 64', 'max_batch_size: 128'],
      ['preferred_batch_size: [ 16, 32, 64 ]', 'preferred_batch_size: [ 32, 64, 128 ]'],
    ],
  },
  'direct-2-instances': {
    label: 'direct, 2 instances',
    source: DIRECT,
    edits: [['count: 1', 'count: 2']],
  },
};

export const DEFAULT_CONFIGS = ['oldest', 'direct'];

export function parseConfigs(text: string): string[] {
  if (text === 'all') return Object.keys(CONFIG_VARIANTS);
  const ids = text.split(',').filter((s) => s !== '');
  for (const id of ids) {
    if (!(id in CONFIG_VARIANTS)) {
      throw new UsageError(
        `--configs: expected 'all' or ids from ${Object.keys(CONFIG_VARIANTS).join(', ')}, got '${id}'`,
      );
    }
  }
  if (ids.length === 0) throw new UsageError('--configs: expected at least one config id');
  return ids;
}

export interface ServedConfig {
  readonly id: string;
  readonly label: string;
  readonly model: string;
  readonly repository: string;
  readonly config: string;
  remove(): Promise<void>;
}

/** A temporary repository with the variant's model: config.pbtxt edited, weights symlinked. */
export async function servedConfig(id: string): Promise<ServedConfig> {
  const v = CONFIG_VARIANTS[id];
  if (v === undefined) throw new UsageError(`unknown config '${id}'`);
  let config = await readFile(path.join(v.source, 'config.pbtxt'), 'utf8');
  for (const [from, to] of v.edits) {
    if (!config.includes(from)) {
      throw new Error(`${id}: expected '${from}' in ${v.source}/config.pbtxt, it is not there`);
    }
    config = config.replace(from, to);
  }
  const model = path.basename(v.source);
  const repository = await mkdtemp(path.join(os.tmpdir(), 'infernode-streams-'));
  await mkdir(path.join(repository, model, '1'), { recursive: true });
  await writeFile(path.join(repository, model, 'config.pbtxt'), config);
  await symlink(
    path.join(v.source, '1', 'model.onnx'),
    path.join(repository, model, '1', 'model.onnx'),
  );
  return {
    id,
    label: v.label,
    model,
    repository,
    config,
    remove: () => rm(repository, { recursive: true, force: true }),
  };
}
