// The classifier step of the bundled text pipeline (`sentiment`): token ids -> mean of their
// embeddings (an embedding bag that skips [PAD] = 0) -> one linear layer -> three logits
// (negative, neutral, positive). The weights are seeded, then nudged so that the vocabulary's
// sentiment words below push their label: a real, deterministic model whose answers make sense on
// simple sentences, built from code like every generated model. The vocabulary is the tokenizer's
// committed file, model_repository/sentiment_tokenizer/vocab.txt (its line number is the id).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ELEM,
  encodeModel,
  floatInitializer,
  int64Initializer,
  intAttribute,
  node,
  tensorValue,
} from './graph-builder.js';
import { mulberry32, uniformFloats } from './seeded-random.js';

export const SENTIMENT_LABELS = ['negative', 'neutral', 'positive'] as const;
const EMBEDDING = 16;
const SEED = 0x5e47;

export const POSITIVE_WORDS = [
  'good',
  'great',
  'love',
  'loved',
  'loves',
  'excellent',
  'wonderful',
  'happy',
  'best',
  'amazing',
  'like',
  'liked',
  'enjoy',
  'enjoyed',
  'fantastic',
  'nice',
  'brilliant',
  'perfect',
  'beautiful',
  'fun',
  'delightful',
  'superb',
  'pleasant',
];
export const NEGATIVE_WORDS = [
  'bad',
  'terrible',
  'hate',
  'hated',
  'awful',
  'worst',
  'poor',
  'boring',
  'sad',
  'horrible',
  'dislike',
  'disappointing',
  'disappointed',
  'waste',
  'broken',
  'ugly',
  'annoying',
  'slow',
  'dull',
  'mediocre',
];

/** The tokenizer's vocabulary, one token per line; the line index is the token id. */
export function sentimentVocabulary(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // dist/scripts/onnx -> repository root
  const file = path.resolve(
    here,
    '..',
    '..',
    '..',
    'model_repository',
    'sentiment_tokenizer',
    'vocab.txt',
  );
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

export interface SentimentWeights {
  /** [vocab, EMBEDDING], row-major. */
  readonly embedding: Float32Array;
  /** [EMBEDDING, 3], row-major. */
  readonly weight: Float32Array;
  readonly bias: Float32Array;
}

export function sentimentWeights(vocab: readonly string[]): SentimentWeights {
  const next = mulberry32(SEED);
  const embedding = uniformFloats(next, vocab.length * EMBEDDING, 0.1);
  embedding.fill(0, 0, EMBEDDING); // [PAD] embeds to zeros (it is masked out anyway)
  const index = new Map(vocab.map((w, i) => [w, i]));
  for (const [words, dim] of [
    [POSITIVE_WORDS, 0],
    [NEGATIVE_WORDS, 1],
  ] as const) {
    for (const w of words) {
      const id = index.get(w);
      if (id !== undefined) embedding[id * EMBEDDING + dim] = 1;
    }
  }
  const weight = uniformFloats(next, EMBEDDING * 3, 0.1);
  weight[0 * 3 + 2] = 4; // dim 0 (positive words) -> positive
  weight[1 * 3 + 0] = 4; // dim 1 (negative words) -> negative
  const bias = Float32Array.of(0, 0.5, 0); // nothing said either way: neutral
  return { embedding, weight, bias };
}

/**
 * INPUT_IDS INT64 [batch, seq] -> LOGITS FP32 [batch, 3]. `vocab` is the tokenizer's by default;
 * the `infernode validate` tests re-export the model with another one.
 */
export function sentimentClassifierModel(
  vocab: readonly string[] = sentimentVocabulary(),
): Uint8Array {
  const w = sentimentWeights(vocab);
  return encodeModel({
    name: 'sentiment_classifier',
    docString:
      'embedding bag (mean over non-[PAD] tokens) + linear; seeded weights from scripts/onnx/sentiment-classifier.ts',
    inputs: [tensorValue('INPUT_IDS', ELEM.INT64, ['batch', 'seq'])],
    outputs: [tensorValue('LOGITS', ELEM.FLOAT, ['batch', 3])],
    initializers: [
      floatInitializer('embedding', [vocab.length, EMBEDDING], w.embedding),
      floatInitializer('fc.weight', [EMBEDDING, 3], w.weight),
      floatInitializer('fc.bias', [3], w.bias),
      int64Initializer('pad', [], [0n]),
      int64Initializer('axis_seq', [1], [1n]),
      int64Initializer('axis_last', [1], [2n]),
      floatInitializer('one', [], Float32Array.of(1)),
    ],
    nodes: [
      node('Gather', ['embedding', 'INPUT_IDS'], ['embedded'], 'lookup'), // [B,S,D]
      node('Greater', ['INPUT_IDS', 'pad'], ['is_token'], 'mask'), // [B,S]
      node('Cast', ['is_token'], ['mask'], 'mask_float', [intAttribute('to', ELEM.FLOAT)]),
      node('Unsqueeze', ['mask', 'axis_last'], ['mask3'], 'mask3'), // [B,S,1]
      node('Mul', ['embedded', 'mask3'], ['kept'], 'keep'),
      node('ReduceSum', ['kept', 'axis_seq'], ['summed'], 'sum', [intAttribute('keepdims', 0)]), // [B,D]
      node('ReduceSum', ['mask3', 'axis_seq'], ['count'], 'count', [intAttribute('keepdims', 0)]), // [B,1]
      node('Max', ['count', 'one'], ['count1'], 'at_least_one'),
      node('Div', ['summed', 'count1'], ['mean'], 'mean'),
      node('Gemm', ['mean', 'fc.weight', 'fc.bias'], ['LOGITS'], 'fc'),
    ],
  });
}
