// Oversized `inputs` / `outputs` lists in large JSON bodies are refused from the bytes, before the
// document is parsed (issue 33, defect 2). Each body here breaks JSON after the limit: a decoder that
// parsed the whole document first answers BAD_JSON; one that counts while it scans answers
// TOO_MANY_TENSORS, with the words (and the count) the envelope decoder has always used.

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
      `the request lists ${N + 1} inputs; at most 1024 are accepted`,
    );
  });

  void it('refuses an inputs list the scan gives up on, before JSON.parse', () => {
    throwsCode(
      () => decodeJsonRequest(utf8(`{"id":"x","inputs":${brokenList(UNSCANNED, N)}}`)),
      'TOO_MANY_TENSORS',
      `the request lists ${N + 1} inputs; at most 1024 are accepted`,
    );
  });

  void it('refuses an outputs list, inputs first when both are too long', () => {
    const outputs = brokenList(OUTPUT, M);
    throwsCode(
      () => decodeJsonRequest(utf8(`{"outputs":${outputs},"inputs":[${INPUT}]}`)),
      'TOO_MANY_TENSORS',
      `the request lists ${M + 1} outputs; at most 1024 are accepted`,
    );
    throwsCode(
      () => decodeJsonRequest(utf8(`{"outputs":${outputs},"inputs":${brokenList(INPUT, 2000)}}`)),
      'TOO_MANY_TENSORS',
      'the request lists 2001 inputs; at most 1024 are accepted',
    );
  });

  void it('refuses a large binary-extension header', () => {
    const header = Buffer.from(`{"inputs":${brokenList(BINARY, N)}}`);
    throwsCode(
      () => decodeInferBody(header, String(header.length)),
      'TOO_MANY_TENSORS',
      `the request lists ${N + 1} inputs; at most 1024 are accepted`,
    );
  });

  void it('counts a key spelled with escapes, and the last of a repeated key', () => {
    const list = `[${Array.from({ length: 1500 }, () => '{}').join(',')}]`;
    throwsCode(
      () => refuseOversizedLists(utf8(`{"in\\u0070uts":${list}}`)),
      'TOO_MANY_TENSORS',
      'the request lists 1500 inputs; at most 1024 are accepted',
    );
    refuseOversizedLists(utf8(`{"inputs":${list},"inputs":[{}]}`));
  });

  void it('leaves lists at the limit, strings holding brackets and malformed text alone', () => {
    const atLimit = `[${Array.from({ length: 1024 }, () => '"],[{"').join(',')}]`;
    refuseOversizedLists(utf8(`{"inputs":${atLimit},"outputs":${atLimit}}`));
    refuseOversizedLists(utf8(`{"inputs" ${atLimit}}`));
    refuseOversizedLists(utf8(`[${atLimit}]`));
    assert.ok(true);
  });
});
