// Candidates for the `infernode validate` tests, exported by the project's own generators into a
// temporary repository: the bundled mlp again, with one weight changed, with a wrong output width,
// with a renamed input, with a slow side branch; an identity model in another datatype; the
// sentiment classifier with another vocabulary. Nothing is downloaded, nothing big is committed.

import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { identityModel, mlpGraph, mlpModel } from '../../scripts/onnx/bundled-models.js';
import { ELEM, encodeModel, floatInitializer, node } from '../../scripts/onnx/graph-builder.js';
import { mlpWeights, type DenseLayer } from '../../scripts/onnx/mlp-weights.js';
import { mulberry32, uniformFloats } from '../../scripts/onnx/seeded-random.js';
import {
  sentimentClassifierModel,
  sentimentVocabulary,
} from '../../scripts/onnx/sentiment-classifier.js';
import { MODEL_REPOSITORY } from './paths.js';
import { FIXTURE_REPOSITORY } from './temp-repository.js';

/** Which weight the "perturbed" candidate changes, and by how much. */
export const PERTURBED = { layer: 2, index: 3, delta: 1e-2 } as const;

/** Writes `bytes` as `<repo>/<model>/<version>/model.onnx`. */
export async function writeVersion(
  repo: string,
  model: string,
  version: number,
  bytes: Uint8Array,
): Promise<string> {
  const dir = path.join(repo, model, String(version));
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'model.onnx');
  await writeFile(file, bytes);
  return file;
}

/** `<repo>/<model>` with the bundled (or fixture) config.pbtxt and version 1 as generated. */
export async function servingModel(
  repo: string,
  model: 'mlp' | 'sentiment_classifier' | 'identity_fp32',
): Promise<void> {
  const from = model === 'identity_fp32' ? FIXTURE_REPOSITORY : MODEL_REPOSITORY;
  await cp(path.join(from, model), path.join(repo, model), { recursive: true });
}

export function sameMlp(): Uint8Array {
  return mlpModel();
}

/** The mlp with one last-layer weight changed by PERTURBED.delta. */
export function perturbedMlp(): Uint8Array {
  const layers = mlpWeights();
  const layer = layers[PERTURBED.layer] as DenseLayer;
  layer.weight[PERTURBED.index] = (layer.weight[PERTURBED.index] as number) + PERTURBED.delta;
  return encodeModel(mlpGraph(layers));
}

/** The mlp with a 512 -> 12 last layer: OUTPUT0 is [batch, 12] where the config says [10]. */
export function widerOutputMlp(): Uint8Array {
  const layers = mlpWeights();
  const next = mulberry32(12);
  layers[2] = {
    inFeatures: 512,
    outFeatures: 12,
    weight: uniformFloats(next, 512 * 12, 1 / Math.sqrt(512)),
    bias: uniformFloats(next, 12, 1 / Math.sqrt(512)),
  };
  return encodeModel(mlpGraph(layers));
}

/** The mlp whose input is called INPUT rather than INPUT0. */
export function renamedInputMlp(): Uint8Array {
  return encodeModel(mlpGraph(mlpWeights(), 'INPUT'));
}

/**
 * The mlp's exact answers, computed alongside `branchLayers` extra 512x512 MatMul+Tanh layers fed
 * from the input whose sum, times zero, is added to OUTPUT0: the same outputs, several times the
 * work (ORT does not fold a product with zero of a computed value away).
 */
export function slowerMlp(branchLayers = 6): Uint8Array {
  const spec = mlpGraph(mlpWeights());
  const next = mulberry32(0x51);
  const nodes = spec.nodes.map((n) =>
    n.output?.[0] === 'OUTPUT0' ? { ...n, output: ['mlp_out'] } : n,
  );
  const initializers = [...(spec.initializers ?? [])];
  initializers.push(floatInitializer('side.w0', [784, 512], uniformFloats(next, 784 * 512, 0.05)));
  initializers.push(floatInitializer('side.w', [512, 512], uniformFloats(next, 512 * 512, 0.05)));
  initializers.push(floatInitializer('side.zero', [], Float32Array.of(0)));
  nodes.push(node('MatMul', ['INPUT0', 'side.w0'], ['side.mm0'], 'side.mm0'));
  nodes.push(node('Tanh', ['side.mm0'], ['side.t0'], 'side.t0'));
  let current = 'side.t0';
  for (let k = 1; k <= branchLayers; k++) {
    nodes.push(node('MatMul', [current, 'side.w'], [`side.mm${k}`], `side.mm${k}`));
    nodes.push(node('Tanh', [`side.mm${k}`], [`side.t${k}`], `side.t${k}`));
    current = `side.t${k}`;
  }
  nodes.push(node('ReduceSum', [current], ['side.sum'], 'side.sum', [])); // all axes -> scalar
  nodes.push(node('Mul', ['side.sum', 'side.zero'], ['side.nothing'], 'side.nothing'));
  nodes.push(node('Add', ['mlp_out', 'side.nothing'], ['OUTPUT0'], 'plus_nothing'));
  return encodeModel({ ...spec, nodes, initializers });
}

/** An Identity model like identity_fp32's, in FP64. */
export function fp64Identity(): Uint8Array {
  return identityModel('identity_fp32', ELEM.DOUBLE);
}

/** The sentiment classifier exported with `extra` more tokens in its vocabulary. */
export function sentimentWithLargerVocabulary(extra = 40): Uint8Array {
  const vocab = sentimentVocabulary();
  for (let i = 0; i < extra; i++) vocab.push(`[unused${i}]`);
  return sentimentClassifierModel(vocab);
}
