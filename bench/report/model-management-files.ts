// The operational benches' published files: bench/results/model-cycles.json,
// reload-under-load.json, soak.json, large-request.json, shared-memory.json and ocr.json, read back
// for rendering,
// with the files derived from each (CSVs, the RSS plots) and their sections of bench/RESULTS.md.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CYCLES_SCHEMA, type CyclesResult } from '../model-management/cycles-result.js';
import { RELOAD_SCHEMA, type ReloadResult } from '../model-management/reload-result.js';
import { SOAK_SCHEMA, type SoakResult } from '../soak/soak-result.js';
import { LARGE_SCHEMA, type LargeResult } from '../large/large-result.js';
import { OCR_SCHEMA, type OcrResult } from '../ocr/ocr-result.js';
import { REPO_ROOT, RESULTS_DIR } from '../paths.js';
import { cyclesCsv, cyclesPlotModel, cyclesSection } from './model-cycles-report.js';
import { plotPng } from './plot-png.js';
import { readPublished } from './published-file.js';
import { phasesCsv, reloadSection, reloadsCsv } from './reload-report.js';
import { soakCsv, soakPlotModel, soakSection } from './soak-report.js';
import { largeRequestSection } from './large-request-report.js';
import { ocrSection } from './ocr-report.js';
import { SHM_SCHEMA, type ShmResult } from '../shm/shm-result.js';
import { shmSection } from './shm-report.js';
import { SHM_LEAK_SCHEMA, type LeakProtocol, type ShmLeakResult } from '../shm/shm-leak-result.js';
import { shmLeakSection } from './shm-leak-report.js';

export const CYCLES_JSON = path.join(RESULTS_DIR, 'model-cycles.json');
export const SHM_JSON = path.join(RESULTS_DIR, 'shared-memory.json');
export const RELOAD_JSON = path.join(RESULTS_DIR, 'reload-under-load.json');
export const SOAK_JSON = path.join(RESULTS_DIR, 'soak.json');
export const LARGE_JSON = path.join(RESULTS_DIR, 'large-request.json');
export const OCR_JSON = path.join(RESULTS_DIR, 'ocr.json');
/** The shared-memory leak check, one file per protocol. */
export const shmLeakJson = (protocol: LeakProtocol): string =>
  path.join(RESULTS_DIR, `shm-leak-${protocol}.json`);

/** A published file with the schema this code renders; null when it is not there. */
async function readResult<T extends { schema: string }>(
  file: string,
  schema: string,
): Promise<T | null> {
  return (await readPublished<T>(file, schema))?.result ?? null;
}

export interface ModelManagementRendering {
  readonly files: readonly string[];
  /** Lines of bench/RESULTS.md; empty when neither bench is published. */
  readonly sections: readonly string[];
}

/** Writes the files derived from the published model-management results; returns their sections. */
export async function renderModelManagement(): Promise<ModelManagementRendering> {
  const files: string[] = [];
  const sections: string[] = [];
  const rel = (f: string): string => path.relative(REPO_ROOT, f);
  const cycles = await readResult<CyclesResult>(CYCLES_JSON, CYCLES_SCHEMA);
  if (cycles !== null) {
    const csv = path.join(RESULTS_DIR, 'model-cycles.csv');
    const png = path.join(RESULTS_DIR, 'model-cycles.png');
    await writeFile(csv, cyclesCsv(cycles));
    await writeFile(png, plotPng(cyclesPlotModel(cycles)));
    files.push(csv, png);
    sections.push(...cyclesSection(cycles, rel(CYCLES_JSON), 'results/model-cycles.png'));
  }
  const reload = await readResult<ReloadResult>(RELOAD_JSON, RELOAD_SCHEMA);
  if (reload !== null) {
    const phases = path.join(RESULTS_DIR, 'reload-under-load.csv');
    const reloads = path.join(RESULTS_DIR, 'reload-under-load.reloads.csv');
    await writeFile(phases, phasesCsv(reload));
    await writeFile(reloads, reloadsCsv(reload));
    files.push(phases, reloads);
    sections.push(...reloadSection(reload, rel(RELOAD_JSON)));
  }
  const soak = await readResult<SoakResult>(SOAK_JSON, SOAK_SCHEMA);
  if (soak !== null) {
    const csv = path.join(RESULTS_DIR, 'soak.csv');
    const png = path.join(RESULTS_DIR, 'soak.png');
    await writeFile(csv, soakCsv(soak));
    await writeFile(png, plotPng(soakPlotModel(soak)));
    files.push(csv, png);
    sections.push(...soakSection(soak, rel(SOAK_JSON), 'results/soak.png'));
  }
  const large = await readResult<LargeResult>(LARGE_JSON, LARGE_SCHEMA);
  if (large !== null) sections.push(...largeRequestSection(large, rel(LARGE_JSON)));
  const shm = await readResult<ShmResult>(SHM_JSON, SHM_SCHEMA);
  if (shm !== null) sections.push(...shmSection(shm, rel(SHM_JSON)));
  const leakFiles = (['http', 'ws', 'grpc'] as const).map(shmLeakJson);
  const leaks = await Promise.all(
    leakFiles.map((f) => readResult<ShmLeakResult>(f, SHM_LEAK_SCHEMA)),
  );
  const found = leakFiles.filter((_, i) => leaks[i] !== null).map(rel);
  sections.push(
    ...shmLeakSection(
      leaks.filter((r) => r !== null),
      found,
    ),
  );
  const ocr = await readResult<OcrResult>(OCR_JSON, OCR_SCHEMA);
  if (ocr !== null) sections.push(...ocrSection(ocr, rel(OCR_JSON)));
  return { files, sections };
}
