// How long the fixture slow_fp32 runs on this machine, measured against a real server, and the
// request sizes that follow from it. Tests that need "the instance is still busy when X happens"
// size their work from this rather than from an assumed speed: the model's run time differs
// several-fold between machines (and with INFERNODE_SLOW_LAYERS), and CI runs on whichever
// machine submits. Requests go over the binary tensor extension, so a large one costs the client
// and the server a memcpy, not megabytes of JSON.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SLOW_WIDTH } from '../../scripts/onnx/fixture-models.js';
import { copyModel } from './temp-repository.js';
import type { TestServer } from './test-server.js';

/** Largest request a slow model copied by `copySlowModel` accepts (16 MiB of FP32 input). */
export const SLOW_MAX_BATCH = 4096;

/**
 * slow_fp32's config with room for large requests: one instance on one intra-op thread (the
 * fixture's own settings, which the timing below is measured with), `max_batch_size`
 * SLOW_MAX_BATCH, and `dynamic_batching { <dynamicBatching> }` when given (the direct scheduler
 * otherwise).
 */
export function slowModelConfig(name: string, dynamicBatching?: string): string {
  const lines = [
    `name: "${name}"`,
    'platform: "onnxruntime_onnx"',
    `max_batch_size: ${SLOW_MAX_BATCH}`,
    `input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ ${SLOW_WIDTH} ] } ]`,
    `output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ ${SLOW_WIDTH} ] } ]`,
    'instance_group [ { count: 1, kind: KIND_CPU } ]',
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }',
  ];
  if (dynamicBatching !== undefined) lines.push(`dynamic_batching { ${dynamicBatching} }`);
  return `${lines.join('\n')}\n`;
}

/** Copies the fixture slow_fp32 into `repo` as `name`, with `slowModelConfig`. */
export async function copySlowModel(
  repo: string,
  name: string,
  dynamicBatching?: string,
): Promise<string> {
  const dir = await copyModel(repo, 'slow_fp32', name);
  await writeFile(path.join(dir, 'config.pbtxt'), slowModelConfig(name, dynamicBatching));
  return dir;
}

/** `rows` rows of slow-model input, distinct per `seed`, as raw little-endian FP32 bytes. */
export function slowInput(rows: number, seed = 0): Buffer {
  const x = Float32Array.from(
    { length: rows * SLOW_WIDTH },
    (_, i) => ((i + seed) % 13) / 13 - 0.5,
  );
  return Buffer.from(x.buffer);
}

/** An infer request body over the binary tensor extension, asking for OUTPUT0 as binary too. */
export function slowRequest(
  rows: number,
  seed = 0,
): { body: Buffer; headers: Record<string, string> } {
  const data = slowInput(rows, seed);
  const header = Buffer.from(
    JSON.stringify({
      inputs: [
        {
          name: 'INPUT0',
          datatype: 'FP32',
          shape: [rows, SLOW_WIDTH],
          parameters: { binary_data_size: data.byteLength },
        },
      ],
      outputs: [{ name: 'OUTPUT0', parameters: { binary_data: true } }],
    }),
  );
  return {
    body: Buffer.concat([header, data]),
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(header.byteLength),
    },
  };
}

export interface SlowReply {
  readonly status: number;
  /** The response's JSON: its header on success (outputs without data), the error otherwise. */
  readonly json: any;
  /** performance.now() when the whole response had arrived. */
  readonly at: number;
  /** Round trip, ms. */
  readonly ms: number;
}

/** POSTs `rows` rows to `model`, reads the whole answer; rejects only if the connection fails. */
export async function inferSlow(
  base: string,
  model: string,
  rows: number,
  options: { seed?: number; signal?: AbortSignal } = {},
): Promise<SlowReply> {
  const { body, headers } = slowRequest(rows, options.seed);
  const t0 = performance.now();
  const res = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers,
    body,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const at = performance.now();
  const split = res.headers.get('inference-header-content-length');
  const text = bytes.subarray(0, split === null ? bytes.length : Number(split)).toString('utf8');
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (e.g. a front-end error page): keep the text for the assertion message
  }
  return { status: res.status, json, at, ms: at - t0 };
}

export interface SlowModelTiming {
  /**
   * What a batch of 8 costs, in ms: the fastest of a few runs, each counted as the lesser of
   * ONNX Runtime's wall time (the server's compute_infer) and the CPU time the process spent on
   * the request. Load stretches wall time far more than CPU time, so this stays close to what the
   * run costs on an idle machine, whichever way the load goes after the timing.
   */
  readonly batch8Ms: number;
  /** The fastest wall time of those runs by the server's compute_infer, in ms (for the log). */
  readonly batch8WallMs: number;
  /**
   * Rows one request needs for its run to keep the instance busy for at least `ms`. Throws when
   * that is more than SLOW_MAX_BATCH: on such a machine the fixture must be regenerated deeper.
   */
  rowsFor(ms: number): number;
  /** One line for the test log. */
  readonly summary: string;
}

/** Timed runs after the warm-up; the fastest one counts (load only ever makes a run slower). */
const TIMED_RUNS = 3;

/**
 * Rows are sized as if a row cost half of what it costs in a batch of 8: ONNX Runtime's MatMul gets
 * cheaper per row as batches grow (here ~0.011 against ~0.015 ms a row per layer at 8), so the
 * margin keeps `rowsFor(ms)` a lower bound where that gap is wider, at the price of requests up to
 * twice as long as asked where it is narrow.
 */
const LARGE_BATCH_DISCOUNT = 2;

async function batch8InferNs(base: string, model: string): Promise<{ count: number; ns: number }> {
  const res = await fetch(`${base}/v2/models/${model}/stats`);
  const doc = (await res.json()) as any;
  const b = doc.model_stats[0].batch_stats.find((s: any) => s.batch_size === 8);
  return b === undefined ? { count: 0, ns: 0 } : b.compute_infer;
}

/**
 * Times slow-model runs of 8 rows on a server started in this process (`startTestServer`, so that
 * its worker threads' CPU time is this process's), on `model`: a copy of slow_fp32 that nothing
 * else uses meanwhile. One warm-up, then the fastest of TIMED_RUNS. The estimate errs low, which
 * is the side every caller needs ("the instance stays busy at least...").
 */
export async function measureSlowModel(t: TestServer, model: string): Promise<SlowModelTiming> {
  const warm = await inferSlow(t.base, model, 8);
  assert.equal(warm.status, 200, JSON.stringify(warm.json));
  let batch8Ms = Infinity;
  let batch8WallMs = Infinity;
  for (let i = 0; i < TIMED_RUNS; i++) {
    const before = await batch8InferNs(t.base, model);
    const cpu0 = process.cpuUsage();
    const r = await inferSlow(t.base, model, 8, { seed: i + 1 });
    const cpu = process.cpuUsage(cpu0);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const after = await batch8InferNs(t.base, model);
    assert.equal(after.count, before.count + 1, 'one execution of 8 rows per request');
    const wallMs = (after.ns - before.ns) / 1e6;
    batch8WallMs = Math.min(batch8WallMs, wallMs);
    batch8Ms = Math.min(batch8Ms, wallMs, (cpu.user + cpu.system) / 1000);
  }
  const msPerRow = batch8Ms / 8 / LARGE_BATCH_DISCOUNT;
  const rowsNeeded = (ms: number): number => Math.max(1, Math.ceil(ms / msPerRow));
  const rowsFor = (ms: number): number => {
    const rows = rowsNeeded(ms);
    if (rows > SLOW_MAX_BATCH) {
      throw new Error(
        `slow_fp32 runs a batch of 8 in ${batch8Ms.toFixed(1)} ms here: keeping an instance busy ` +
          `for ${ms} ms would take ${rows} rows, over ${SLOW_MAX_BATCH}. Regenerate it deeper ` +
          '(INFERNODE_SLOW_LAYERS, see README).',
      );
    }
    return rows;
  };
  const summary =
    `slow_fp32: a batch of 8 costs ${batch8Ms.toFixed(1)} ms ` +
    `(wall ${batch8WallMs.toFixed(1)} ms); 1 s of work is ${rowsNeeded(1000)} rows`;
  return { batch8Ms, batch8WallMs, rowsFor, summary };
}
