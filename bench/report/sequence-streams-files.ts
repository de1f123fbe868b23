// The streams bench's published file, bench/results/sequence-streams.json, read back for
// rendering: the CSV of its probes and its section of bench/RESULTS.md.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { STREAMS_SCHEMA, type StreamsResult } from '../streams/streams-result.js';
import { streamsCsv, streamsSection } from './sequence-streams-report.js';

export const STREAMS_JSON = path.join(RESULTS_DIR, 'sequence-streams.json');
const STREAMS_CSV = path.join(RESULTS_DIR, 'sequence-streams.csv');

export interface StreamsRendering {
  readonly files: readonly string[];
  readonly sections: readonly string[];
}

/** Writes the CSV from the published result and returns its section; nothing when unpublished. */
export async function renderSequenceStreams(): Promise<StreamsRendering> {
  let text: string;
  try {
    text = await readFile(STREAMS_JSON, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], sections: [] };
    throw e;
  }
  const result = JSON.parse(text) as StreamsResult;
  if (result.schema !== STREAMS_SCHEMA) {
    throw new Error(
      `${STREAMS_JSON}: expected schema ${STREAMS_SCHEMA}, got ${String(result.schema)}`,
    );
  }
  await writeFile(STREAMS_CSV, streamsCsv(result));
  return {
    files: [STREAMS_CSV],
    sections: streamsSection(result, path.relative(REPO_ROOT, STREAMS_JSON)),
  };
}
