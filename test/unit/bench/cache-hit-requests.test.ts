// `bench run --cache-hit-ratio`: the flag's parsing, and the request source that sends the mix —
// the share of repeated inputs near the ratio, fresh inputs never repeated across threads or
// levels, the same sequence for the same seed, and nonces the server reads back from JSON and from
// the binary extension.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CacheHitRequests,
  jsonNonceSite,
  NONCE_PLACEHOLDER,
  type CacheHitInit,
} from '../../../bench/load/cache-hit-requests.js';
import { buildHttpRequest } from '../../../bench/load/http-request.js';
import type { InputSet } from '../../../bench/model/input-data.js';
import { binaryRequestBody, jsonRequestBody } from '../../../bench/model/request-body.js';
import { parseBenchFlags } from '../../../bench/options/parse-flags.js';
import { UsageError } from '../../../bench/options/usage-error.js';

const ratioOf = (...args: string[]) =>
  parseBenchFlags(['-m', 'mlp', ...args], 'bench').options.cacheHitRatio;

const SET: InputSet = [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], elements: [NONCE_PLACEHOLDER, 0.5, 1, 2] },
  { name: 'INPUT1', datatype: 'INT32', shape: [1, 2], elements: [3, 4] },
];

function jsonSource(ratio: number, threadIndex = 0, threads = 1, seed = 1) {
  const request = buildHttpRequest('h', 1, '/v2/models/m/infer', jsonRequestBody(SET));
  const init: CacheHitInit = { ratio, sites: [jsonNonceSite(request)], threads, seed };
  const source = new CacheHitRequests([request], init, threadIndex);
  const head = request.indexOf('\r\n\r\n') + 4;
  return {
    request,
    /** The nonce of the next request, read back as the server reads the body. */
    next(): number {
      const out = source.next();
      assert.equal(out.length, request.length, 'Content-Length never changes');
      const body = JSON.parse(out.subarray(head).toString('utf8')) as {
        inputs: { data: number[] }[];
      };
      assert.deepEqual(body.inputs[0]?.data.slice(1), [0.5, 1, 2]);
      return body.inputs[0]?.data[0] as number;
    },
  };
}

void describe('--cache-hit-ratio', () => {
  void it('is off by default, takes a share 0..1, and is refused where it cannot vary requests', () => {
    assert.equal(ratioOf(), null);
    assert.equal(ratioOf('--cache-hit-ratio', '0.9'), 0.9);
    assert.equal(ratioOf('--cache-hit-ratio', '0'), 0);
    assert.throws(() => ratioOf('--cache-hit-ratio', '1.5'), UsageError);
    assert.throws(() => ratioOf('--cache-hit-ratio', '0.5', '-i', 'grpc'), /-i http/);
  });

  void it('repeats about the asked-for share, from recent fresh inputs, and never reuses a fresh nonce', () => {
    for (const ratio of [0, 0.5, 0.9]) {
      const source = jsonSource(ratio);
      const seen = new Set<number>();
      let repeats = 0;
      const n = 20_000;
      for (let i = 0; i < n; i += 1) {
        const nonce = source.next();
        assert.ok(nonce >= 1 && nonce < NONCE_PLACEHOLDER);
        if (seen.has(nonce)) repeats += 1;
        seen.add(nonce);
      }
      assert.ok(Math.abs(repeats / n - ratio) < 0.02, `ratio ${ratio}: ${repeats / n} repeats`);
    }
  });

  void it('sends the same sequence for the same seed, and disjoint fresh nonces per thread', () => {
    const take = (s: { next(): number }, k: number) => Array.from({ length: k }, () => s.next());
    assert.deepEqual(take(jsonSource(0.5), 500), take(jsonSource(0.5), 500));
    assert.notDeepEqual(take(jsonSource(0.5, 0, 1, 1), 500), take(jsonSource(0.5, 0, 1, 2), 500));
    const a = new Set(take(jsonSource(0, 0, 2), 500));
    const b = take(jsonSource(0, 1, 2), 500);
    assert.equal(a.size, 500);
    assert.ok(b.every((x) => !a.has(x)));
  });

  void it('writes the nonce as the first element of a binary FP32 input', () => {
    const body = binaryRequestBody(SET);
    const request = buildHttpRequest('h', 1, '/v2/models/m/infer', body);
    const offset = request.length - body.body.byteLength + (body.inferenceHeaderLength as number);
    assert.equal(request.readFloatLE(offset), NONCE_PLACEHOLDER);
    const source = new CacheHitRequests(
      [request],
      { ratio: 0, sites: [{ kind: 'binary', offset, datatype: 'FP32' }], threads: 1, seed: 1 },
      0,
    );
    const nonces = [source.next(), source.next()].map((r) => r.readFloatLE(offset));
    assert.deepEqual(nonces, [1, 2]);
    assert.equal(source.next().readFloatLE(offset + 4), 0.5, 'the rest of the input is untouched');
  });
});
