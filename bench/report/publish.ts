// Publishing a comparison: copies its files to bench/results/latest.* (committed) — or, for a
// comparison of infernode's transports, to bench/results/protocols-<model>.json, and for a thread
// sweep to threads-<model>.json — regenerates bench/RESULTS.md from latest.json plus every
// protocols-*.json, overhead-*.json, threads-*.json and the model-management results
// (model-cycles.json, reload-under-load.json, soak.json, large-request.json, ocr.json,
// shared-memory.json), the
// sequence streams bench (sequence-streams.json) and the GPU hosts' folders (gpu-<host>/), and
// refreshes the README's block between its `<!-- bench-results:start/end -->` markers when the
// README has them. Generated Markdown, JSON
// and HTML are run through the repository's prettier so `prettier --check .` stays clean.

import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { README, REPO_ROOT, RESULTS_DIR, RESULTS_MD } from '../paths.js';
import type { CyclesResult } from '../model-management/cycles-result.js';
import type { ReloadResult } from '../model-management/reload-result.js';
import type { SoakResult } from '../soak/soak-result.js';
import type { LargeResult } from '../large/large-result.js';
import type { OcrResult } from '../ocr/ocr-result.js';
import type { ShmResult } from '../shm/shm-result.js';
import type { ShmLeakResult } from '../shm/shm-leak-result.js';
import { perfAnalyzerCsv } from './csv.js';
import { renderHtml } from './html-report.js';
import {
  CYCLES_JSON,
  RELOAD_JSON,
  SOAK_JSON,
  LARGE_JSON,
  OCR_JSON,
  SHM_JSON,
  shmLeakJson,
  renderModelManagement,
  type ModelManagementRendering,
} from './model-management-files.js';
import { latencyThroughputModel } from './plot-model.js';
import { plotPng } from './plot-png.js';
import { isProtocolRun, type ResultFile } from './protocol-table.js';
import { isOverheadRun, overheadFileName, overheadSections } from './overhead-table.js';
import { isThreadSweepRun, threadSweepFileName, threadSweepSections } from './thread-table.js';
import { RESULT_SCHEMA, type BenchResult } from './result-types.js';
import { renderReadmeBlock, renderResultsMarkdown, spliceReadme } from './results-md.js';
import { renderSequenceStreams, STREAMS_JSON } from './sequence-streams-files.js';
import { ENSEMBLE_JSON, renderEnsembleOverhead } from '../pipelines/ensemble-files.js';
import { NOISY_JSON, renderNoisyNeighbour } from '../tenants/noisy-neighbour-files.js';
import type { NoisyResult } from '../tenants/noisy-neighbour-result.js';
import { cacheJsonFor, CACHE_MEMORY_JSON, renderResponseCache } from '../cache/cache-files.js';
import type { CacheMemoryResult, CacheResult } from '../cache/cache-result.js';
import { renderGpuResults } from './gpu-results-files.js';
import type { EnsembleResult } from '../pipelines/ensemble-result.js';
import { renderShadowOverhead, SHADOW_JSON } from '../shadow/shadow-files.js';
import { AB_JSON, renderPerRequestAb } from '../ab/ab-files.js';
import type { AbResult } from '../ab/ab-result.js';
import type { ShadowResult } from '../shadow/shadow-result.js';
import type { StreamsResult } from '../streams/streams-result.js';
import { mainTarget } from './write-outputs.js';

export interface Published {
  readonly files: readonly string[];
  /** False when the README has no markers (the lead adds them once). */
  readonly readmeUpdated: boolean;
}

/** `text` as Prettier writes `file`, or as given where Prettier is not installed. */
export async function formatted(file: string, text: string): Promise<string> {
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(file)) ?? {};
    return await prettier.format(text, { ...config, filepath: file });
  } catch {
    // prettier is a dev dependency; without it the files are still valid, just not reformatted.
    return text;
  }
}

export async function writeFormatted(file: string, text: string): Promise<void> {
  await writeFile(file, await formatted(file, text));
}

const at = (name: string): string => path.join(RESULTS_DIR, name);

/** A published result file, checked for the schema this code renders. */
async function readResult(file: string): Promise<BenchResult> {
  const result = JSON.parse(await readFile(file, 'utf8')) as BenchResult;
  if (result.schema !== RESULT_SCHEMA) {
    throw new Error(`${file}: expected schema ${RESULT_SCHEMA}, got ${String(result.schema)}`);
  }
  return result;
}

/** The published transport comparisons, one file per model, in name order. */
export function readProtocolResults(): Promise<ResultFile[]> {
  return readResultFiles(/^protocols-.+\.json$/);
}

/** The published thread sweeps, one file per model, in name order. */
export function readThreadSweepResults(): Promise<ResultFile[]> {
  return readResultFiles(/^threads-.+\.json$/);
}

/** The published per-request overhead comparisons (model, batch, Node major), in name order. */
export function readOverheadResults(): Promise<ResultFile[]> {
  return readResultFiles(/^overhead-.+\.json$/);
}

async function readResultFiles(pattern: RegExp): Promise<ResultFile[]> {
  const names = (await readdir(RESULTS_DIR).catch(() => [] as string[]))
    .filter((n) => pattern.test(n))
    .sort();
  return Promise.all(
    names.map(async (n) => ({
      result: await readResult(at(n)),
      source: path.relative(REPO_ROOT, at(n)),
    })),
  );
}

/**
 * Everything derived from the published result files: from bench/results/latest.json the CSVs,
 * the HTML report, the PNG plot and (when it has the markers) the README block; the
 * model-management benches' CSVs and plot; and bench/RESULTS.md from all of them. Run again
 * after a renderer changes, with no new measurement (`node dist/bench/cli.js render`).
 */
export async function renderAllPublished(): Promise<Published> {
  const latest = at('latest.json');
  const main = await readResult(latest).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  });
  const protocols = await readProtocolResults();
  // The overhead comparisons' sections, then the thread sweeps'.
  const sections = [
    ...overheadSections(await readOverheadResults()),
    ...threadSweepSections(await readThreadSweepResults()),
  ];
  const management = await renderModelManagement();
  const streams = await renderSequenceStreams();
  // The streams bench's section follows the model-management ones, in the same list; the GPU
  // hosts' sections come last.
  const managed: ModelManagementRendering = {
    files: [...management.files, ...streams.files],
    sections: [
      ...management.sections,
      ...streams.sections,
      ...(await renderEnsembleOverhead()),
      ...(await renderShadowOverhead()),
      ...(await renderResponseCache()),
      ...(await renderNoisyNeighbour()),
      ...(await renderPerRequestAb()),
      ...(await renderGpuResults()),
    ],
  };
  if (
    main === null &&
    protocols.length === 0 &&
    sections.length === 0 &&
    managed.sections.length === 0
  ) {
    throw new Error(`no result files in ${RESULTS_DIR}: run npm run bench:compare first`);
  }
  if (main !== null) return renderPublished(main, protocols, managed, sections);
  await writeFormatted(
    RESULTS_MD,
    renderResultsMarkdown(null, '', '', protocols, managed.sections, sections),
  );
  return { files: [...managed.files, RESULTS_MD], readmeUpdated: false };
}

export async function renderPublished(
  result: BenchResult,
  protocols: readonly ResultFile[] = [],
  managed: ModelManagementRendering = { files: [], sections: [] },
  overhead: readonly string[] = [],
): Promise<Published> {
  const percentile = result.options.percentile;
  const files: string[] = [...managed.files];
  const main = mainTarget(result);
  if (main !== undefined) {
    await writeFile(at('latest.csv'), perfAnalyzerCsv(main, percentile));
    files.push(at('latest.csv'));
  }
  for (const t of result.targets) {
    await writeFile(at(`latest.${t.id}.csv`), perfAnalyzerCsv(t, percentile));
  }
  await writeFormatted(at('latest.html'), renderHtml(result));
  await writeFile(at('latest.png'), plotPng(latencyThroughputModel(result)));
  files.push(at('latest.html'), at('latest.png'));
  const source = path.relative(REPO_ROOT, at('latest.json'));
  await writeFormatted(
    RESULTS_MD,
    renderResultsMarkdown(
      result,
      source,
      'results/latest.png',
      protocols,
      managed.sections,
      overhead,
    ),
  );
  files.push(RESULTS_MD);
  const readme = await readFile(README, 'utf8').catch(() => '');
  const spliced = spliceReadme(readme, renderReadmeBlock(result));
  if (spliced !== null) {
    await writeFormatted(README, spliced);
    files.push(README);
  }
  return { files, readmeUpdated: spliced !== null };
}

/**
 * Where a comparison is published: threads-<model>.json for a thread sweep,
 * overhead-<model>-b<batch>-node<major>.json for a run with the one-thread naive baseline, protocols-<model>.json for transports, else latest.json.
 */
export function publishedName(result: BenchResult): string {
  if (isThreadSweepRun(result)) return threadSweepFileName(result);
  if (isOverheadRun(result)) return overheadFileName(result);
  return isProtocolRun(result) ? `protocols-${result.model.name}.json` : 'latest.json';
}

/** Stores a comparison as its published file and renders everything from the files. */
export async function publish(result: BenchResult): Promise<Published> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const json = at(publishedName(result));
  await writeFormatted(json, `${JSON.stringify(result, null, 2)}\n`);
  const rendered = await renderAllPublished();
  return { files: [json, ...rendered.files], readmeUpdated: rendered.readmeUpdated };
}

/** Stores a model-management result as its published file and renders everything from the files. */
async function publishModelManagement(file: string, result: object): Promise<string[]> {
  await mkdir(RESULTS_DIR, { recursive: true });
  await writeFormatted(file, `${JSON.stringify(result, null, 2)}\n`);
  return [file, ...(await renderAllPublished()).files];
}

export function publishModelCycles(result: CyclesResult): Promise<string[]> {
  return publishModelManagement(CYCLES_JSON, result);
}

export function publishSequenceStreams(result: StreamsResult): Promise<string[]> {
  return publishModelManagement(STREAMS_JSON, result);
}

export function publishReloadUnderLoad(result: ReloadResult): Promise<string[]> {
  return publishModelManagement(RELOAD_JSON, result);
}

export function publishSoak(result: SoakResult): Promise<string[]> {
  return publishModelManagement(SOAK_JSON, result);
}

export function publishLargeRequest(result: LargeResult): Promise<string[]> {
  return publishModelManagement(LARGE_JSON, result);
}

export function publishSharedMemory(result: ShmResult): Promise<string[]> {
  return publishModelManagement(SHM_JSON, result);
}

export function publishShmLeak(result: ShmLeakResult): Promise<string[]> {
  return publishModelManagement(shmLeakJson(result.protocol), result);
}

export function publishOcr(result: OcrResult): Promise<string[]> {
  return publishModelManagement(OCR_JSON, result);
}

export function publishEnsembleOverhead(result: EnsembleResult): Promise<string[]> {
  return publishModelManagement(ENSEMBLE_JSON, result);
}

export function publishShadowOverhead(result: ShadowResult): Promise<string[]> {
  return publishModelManagement(SHADOW_JSON, result);
}

export function publishPerRequestAb(result: AbResult): Promise<string[]> {
  return publishModelManagement(AB_JSON, result);
}

export function publishNoisyNeighbour(result: NoisyResult): Promise<string[]> {
  return publishModelManagement(NOISY_JSON, result);
}

export function publishResponseCache(result: CacheResult): Promise<string[]> {
  return publishModelManagement(cacheJsonFor(result.model), result);
}

export function publishResponseCacheMemory(result: CacheMemoryResult): Promise<string[]> {
  return publishModelManagement(CACHE_MEMORY_JSON, result);
}
