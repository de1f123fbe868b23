// One request before any load: the target must answer the exact bytes the generator will send
// with 200 and the model's outputs. A benchmark of error responses would measure nothing useful,
// and the generator itself only counts bytes.

import { UsageError } from '../options/usage-error.js';
import type { RequestBody } from './http-request.js';

export interface PreflightResult {
  readonly outputs: readonly string[];
}

export async function preflight(
  base: string,
  path: string,
  request: RequestBody,
  expectedOutputs: readonly string[],
): Promise<PreflightResult> {
  const headers: Record<string, string> = { 'content-type': request.contentType };
  if (request.inferenceHeaderLength !== undefined) {
    headers['inference-header-content-length'] = String(request.inferenceHeaderLength);
  }
  const res = await fetch(base + path, { method: 'POST', headers, body: request.body });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new UsageError(
      `preflight POST ${path}: expected 200, got ${res.status}: ${bytes.toString('utf8', 0, 500)}`,
    );
  }
  const headerLength = res.headers.get('inference-header-content-length');
  const jsonPart = headerLength === null ? bytes : bytes.subarray(0, Number(headerLength));
  let body: { outputs?: { name?: unknown }[] };
  try {
    body = JSON.parse(jsonPart.toString('utf8')) as typeof body;
  } catch {
    throw new UsageError(
      `preflight POST ${path}: the response is not KServe JSON: ${jsonPart.toString('utf8', 0, 200)}`,
    );
  }
  const outputs = (body.outputs ?? []).map((o) => String(o.name));
  const missing = expectedOutputs.filter((name) => !outputs.includes(name));
  if (missing.length > 0) {
    throw new UsageError(
      `preflight POST ${path}: expected outputs ${expectedOutputs.join(', ')}, got ${outputs.join(', ') || 'none'}`,
    );
  }
  return { outputs };
}
