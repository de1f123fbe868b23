// The `mlp` inference both model-management benches send: one row of seeded FP32 values as a KServe
// v2 JSON request (the encoding of the published comparison), prebuilt as HTTP/1.1 bytes, and a
// helper that sends it over one keep-alive connection and insists on a 200.

import { seededRandom } from '../load/arrival-schedule.js';
import type { HttpConnection } from '../load/http-connection.js';
import { buildHttpRequest } from '../load/http-request.js';
import { jsonRequestBody } from '../model/request-body.js';

export const MLP = 'mlp';
const FEATURES = 784;

/** `POST /v2/models/mlp/infer` with one row of values in [-1, 1) drawn from `seed`. */
export function mlpInferRequest(host: string, port: number, seed: number): Buffer {
  const random = seededRandom(seed);
  const row = Array.from({ length: FEATURES }, () => random() * 2 - 1);
  const body = jsonRequestBody([
    { name: 'INPUT0', datatype: 'FP32', shape: [1, FEATURES], elements: row },
  ]);
  return buildHttpRequest(host, port, `/v2/models/${MLP}/infer`, body);
}

/** Sends `request` once; rejects unless the answer is a 200. */
export function inferOnce(conn: HttpConnection, request: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    conn.send(request, (o) => {
      const status = o.response?.status ?? null;
      if (status === 200) resolve();
      else
        reject(new Error(`inference failed: ${status ?? o.error} ${o.response?.bodySample ?? ''}`));
    });
  });
}
