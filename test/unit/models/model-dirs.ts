// Shared by the model tests: generate a repository into a fresh temp dir and open its sessions.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import '../../helpers/ort-telemetry-off.js';

/** A fresh, empty temp directory; `dispose()` removes it. */
export async function tempDir(prefix: string): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `infernode-${prefix}-`));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** Opens `<repo>/<model>/1/model.onnx` on one intra-op thread (tests share a 2-core box). */
export function openSession(repo: string, model: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(path.join(repo, model, '1', 'model.onnx'), {
    intraOpNumThreads: 1,
  });
}

/** Runs a session and returns the named output, failing loudly if ORT did not produce it. */
export async function runOne(
  session: ort.InferenceSession,
  feeds: Record<string, ort.Tensor>,
  output: string,
): Promise<ort.Tensor> {
  const result = await session.run(feeds);
  const tensor = result[output];
  if (tensor === undefined) {
    throw new Error(`expected output ${output}, got [${Object.keys(result).join(', ')}]`);
  }
  return tensor;
}

/** Shape of an input as ORT reports it: numbers for fixed dims, the dim_param name for dynamic ones. */
export function inputShape(
  session: ort.InferenceSession,
  index: number,
): readonly (number | string)[] {
  const meta = session.inputMetadata[index];
  if (meta === undefined || !meta.isTensor) throw new Error(`input ${index} is not a tensor`);
  return meta.shape;
}
