// Oversized `inputs` / `outputs` lists in large JSON bodies are refused from the bytes, before the
// document is parsed (issue 33, defect 2). Each body here breaks JSON after the limit: a decoder that
// parsed the whole document first, or read past the first element over the limit, answers BAD_JSON;
// one that counts while it scans and stops there answers TOO_MANY_TENSORS ("more than 1024": the
// rest is never read, so its length is not known).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeInferBody } from '../../../src/http/decode-infer-body.js';
import { decodeJsonRequest } from '../../../src/http/json-request.js';
import { refuseOversizedLists } from '../../../src/http/json-tensor-count.js';
import { MOVE_MIN_BYTES } from '../../../src/memory/movable-buffers.js';
import { throwsCode, utf8 } from '../protocol/expect-error.js';

const INPUT = '{"name":"INPUT0","datatype":"FP32","shape":[1],"data":[1]}';
/** `data` before `datatype`: the byte scan gives up on it, and the body goes the JSON.parse way. */
const UNSCANNED = '{"data":[1],"name":"INPUT0","datatype":"FP32","shape":[1]}';
const BINARY =
  '{"name":"INPUT0","datatype":"FP32","shape":[1],"parameters":{"binary_data_size":4}}';

/** `n` copies of `entry`, then an element no JSON parser accepts. */
function brokenList(entry: string, n: number): string {
  return `[${Array.from({ length: n }, () => entry).join(',')},@]`;
}

/** Enough entries to pass the scan threshold, so the large-body path is taken. */
const enough = (entry: string): number => Math.ceil((MOVE_MIN_BYTES * 1.2) / entry.length);
const N = enough(INPUT);
const OUTPUT = '{"name":"OUTPUT0"}';
const M = enough(OUTPUT);

void describe('oversized tensor lists in large JSON bodies', () => {
  void it('refuses an inputs list the scan reads, without parsing past the limit', () => {
    throwsCode(
      () => decodeJsonRequest(utf8(`{"inputs":${brokenList(INPUT, N)}}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
  });

  void it('refuses an inputs list the scan gives up on, before JSON.parse', () => {
    throwsCode(
      () => decodeJsonRequest(utf8(`{"id":"x","inputs":${brokenList(UNSCANNED, N)}}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
  });

  void it('refuses an outputs list; of two oversized lists, the first in the body', () => {
    const outputs = brokenList(OUTPUT, M);
    throwsCode(
      () => decodeJsonRequest(utf8(`{"outputs":${outputs},"inputs":[${INPUT}]}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 outputs; at most 1024 are accepted',
    );
    throwsCode(
      () => decodeJsonRequest(utf8(`{"outputs":${outputs},"inputs":${brokenList(INPUT, 2000)}}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 outputs; at most 1024 are accepted',
    );
  });

  void it('reads nothing past the first element over the limit', () => {
    // A string that never closes after element 1025: a scan that went on would reach the end of
    // the bytes inside it, give up, and leave the body to JSON.parse (BAD_JSON).
    const list = `[${Array.from({ length: 1025 }, () => '{}').join(',')},"never closed`;
    for (const key of ['inputs', 'outputs'] as const) {
      throwsCode(
        () => refuseOversizedLists(utf8(`{"${key}":${list}`)),
        'TOO_MANY_TENSORS',
        `the request lists more than 1024 ${key}; at most 1024 are accepted`,
      );
    }
    throwsCode(
      () => decodeJsonRequest(utf8(`{"inputs":[${Array(N).fill(INPUT).join(',')},"never`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
  });

  void it('refuses a large binary-extension header', () => {
    const header = Buffer.from(`{"inputs":${brokenList(BINARY, N)}}`);
    throwsCode(
      () => decodeInferBody(header, String(header.length)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
  });

  void it('counts a key spelled with escapes, and refuses the first oversized list of a repeated key', () => {
    const list = `[${Array.from({ length: 1500 }, () => '{}').join(',')}]`;
    throwsCode(
      () => refuseOversizedLists(utf8(`{"in\\u0070uts":${list}}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
    throwsCode(
      () => refuseOversizedLists(utf8(`{"inputs":${list},"inputs":[{}]}`)),
      'TOO_MANY_TENSORS',
      'the request lists more than 1024 inputs; at most 1024 are accepted',
    );
    refuseOversizedLists(utf8(`{"inputs":[{}],"inputs":[{}]}`.padEnd(4096, ' ')));
  });

  void it('leaves lists at the limit, strings holding brackets and malformed text alone', () => {
    const atLimit = `[${Array.from({ length: 1024 }, () => '"],[{"').join(',')}]`;
    refuseOversizedLists(utf8(`{"inputs":${atLimit},"outputs":${atLimit}}`));
    refuseOversizedLists(utf8(`{"inputs" ${atLimit}}`));
    refuseOversizedLists(utf8(`[${atLimit}]`));
    assert.ok(true);
  });
});
