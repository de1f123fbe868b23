// Does the candidate fit before anything runs? Two checks, each listing every problem it finds:
// against the model's config (the ORT backend's own check, check-model-io.ts: names, datatypes,
// shapes, the batch dimension), and against the serving version's model signature (the same
// inputs and outputs with the same types and shapes, so no client request changes meaning).

import type { ModelConfig } from '../config/model-config.js';
import type { ModelIO, ModelIOTensor } from '../config/read-model-io.js';
import { checkModelAgainstConfig } from '../execution/onnxruntime/config/check-model-io.js';

export interface SignatureFit {
  /** What fails the candidate; empty when it fits. */
  readonly problems: readonly string[];
  /** Differences that change nothing for a client (an output the config does not list). */
  readonly notes: readonly string[];
}

const dimText = (shape: readonly (number | string)[]): string =>
  `[${shape.map((d) => (typeof d === 'number' && d >= 0 ? String(d) : '-1')).join(',')}]`;

export function checkSignatureFit(
  config: ModelConfig,
  serving: ModelIO,
  candidate: ModelIO,
): SignatureFit {
  const problems: string[] = [];
  const notes: string[] = [];
  try {
    checkModelAgainstConfig(config, candidate);
  } catch (e) {
    problems.push(`config: ${e instanceof Error ? e.message : String(e)}`);
  }
  for (const role of ['input', 'output'] as const) {
    const want = role === 'input' ? serving.inputs : serving.outputs;
    const have = role === 'input' ? candidate.inputs : candidate.outputs;
    const byName = new Map(have.map((t) => [t.name, t]));
    for (const s of want) {
      const c = byName.get(s.name);
      if (c === undefined) {
        problems.push(
          `serving signature: ${role} "${s.name}" (${s.ortType} ${dimText(s.shape)}) is missing from the candidate, which has ${role}s ${have.map((t) => `"${t.name}"`).join(', ') || 'none'}`,
        );
        continue;
      }
      problems.push(...compareTensor(role, s, c));
    }
    const known = new Set(want.map((t) => t.name));
    for (const c of have) {
      if (known.has(c.name)) continue;
      const line = `${role} "${c.name}" (${c.ortType} ${dimText(c.shape)}) is new in the candidate`;
      // A new input would have to be fed by every client; a new output is simply not asked for.
      if (role === 'input') problems.push(`serving signature: ${line}`);
      else notes.push(line);
    }
  }
  return { problems, notes };
}

function compareTensor(role: string, s: ModelIOTensor, c: ModelIOTensor): string[] {
  const out: string[] = [];
  if (s.ortType !== c.ortType) {
    out.push(
      `serving signature: ${role} "${s.name}" has type ${s.ortType} in the serving version, ${c.ortType} in the candidate`,
    );
  }
  if (dimText(s.shape) !== dimText(c.shape)) {
    out.push(
      `serving signature: ${role} "${s.name}" has shape ${dimText(s.shape)} in the serving version, ${dimText(c.shape)} in the candidate`,
    );
  }
  return out;
}
