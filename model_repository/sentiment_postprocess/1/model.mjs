// The postprocess step of the `sentiment` ensemble, a JavaScript model: softmax over the
// classifier's logits, and the most likely label from ../labels.txt with its probability.

import { readFileSync } from 'node:fs';
import path from 'node:path';

let labels = [];

export function initialize(args) {
  labels = readFileSync(path.join(args.model_repository, 'labels.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

function softmax(logits) {
  const max = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

export function execute(requests) {
  return requests.map((request) => {
    const logits = request.inputs.LOGITS; // FP32 [rows, classes]
    const rows = logits.shape[0];
    const classes = logits.shape[1];
    if (classes !== labels.length) {
      return new Error(`expected ${labels.length} logits per row (labels.txt), got ${classes}`);
    }
    const probabilities = new Float32Array(rows * classes);
    const label = [];
    const score = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      const p = softmax([...logits.data.subarray(r * classes, (r + 1) * classes)]);
      probabilities.set(p, r * classes);
      const best = p.indexOf(Math.max(...p));
      label.push(labels[best]);
      score[r] = p[best];
    }
    return {
      outputs: {
        LABEL: { shape: [rows, 1], data: label },
        SCORE: { shape: [rows, 1], data: score },
        PROBABILITIES: { shape: [rows, classes], data: probabilities },
      },
    };
  });
}
