// The binary tensor extension's request framing: Inference-Header-Content-Length, raw binary
// requests, and handing the bytes after the JSON header to inputs with binary_data_size.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeInferBody, parseHeaderLength } from '../../../src/http/decode-infer-body.js';
import type { DecodedRequest } from '../../../src/protocol/inference-request.js';
import { bytesOf, jsonBytes, throwsCode, utf8 } from '../protocol/expect-error.js';

/** JSON header + binary parts as one body, and the header length to send. */
function framed(doc: unknown, ...parts: Uint8Array[]): { body: Uint8Array; header: string } {
  const head = jsonBytes(doc);
  const body = new Uint8Array(head.length + parts.reduce((n, p) => n + p.length, 0));
  body.set(head);
  let at = head.length;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return { body, header: String(head.length) };
}

const binInput = (name: string, size: number, datatype = 'FP32'): Record<string, unknown> => ({
  name,
  datatype,
  shape: [size / 4],
  parameters: { binary_data_size: size },
});

function decoded(body: Uint8Array, header: string | undefined): DecodedRequest {
  const r = decodeInferBody(body, header);
  assert.ok(!('rawBinary' in r), 'expected a decoded request');
  return r;
}

void describe('Inference-Header-Content-Length', () => {
  void it('absent: the whole body is JSON', () => {
    const r = decoded(
      jsonBytes({ inputs: [{ name: 'a', datatype: 'INT8', shape: [1], data: [1] }] }),
      undefined,
    );
    assert.equal(r.inputs[0]?.name, 'a');
  });

  void it('0: the body is a raw binary request, returned as is', () => {
    const body = new Uint8Array([1, 2, 3]);
    const r = decodeInferBody(body, '0');
    assert.ok('rawBinary' in r);
    assert.equal(r.rawBinary, body);
  });

  void it('refuses values that are not a decimal integer in [0, body size]', () => {
    const body = jsonBytes({ inputs: [] });
    const size = body.length;
    const expect = (value: string): void =>
      throwsCode(
        () => decodeInferBody(body, value),
        'BAD_HEADER_LENGTH',
        `Inference-Header-Content-Length must be a decimal integer in [0, ${size}] (the body size), got ${JSON.stringify(value)}`,
      );
    for (const v of ['99999999999', '-1', 'abc', String(size + 10), '', '1e1', '0x10', '1.5', ' '])
      expect(v);
    throwsCode(
      () => parseHeaderLength('9'.repeat(1000), 5),
      'BAD_HEADER_LENGTH',
      /got "9{40}\.\.\."$/,
    );
  });

  void it('accepts surrounding whitespace and exactly the body size', () => {
    assert.equal(parseHeaderLength(' 12 ', 12), 12);
    const body = jsonBytes({ inputs: [{ name: 'a', datatype: 'INT8', shape: [1], data: [1] }] });
    assert.equal(decoded(body, String(body.length)).inputs.length, 1);
  });
});

void describe('binary inputs', () => {
  void it('hands each binary input its bytes in order, as views of the body', () => {
    const a = bytesOf(new Float32Array([1, 2]));
    const b = bytesOf(new Float32Array([3]));
    const doc = {
      inputs: [
        binInput('A', 8),
        { name: 'J', datatype: 'INT8', shape: [1], data: [5] },
        binInput('B', 4),
        binInput('Z', 0),
      ],
    };
    const { body, header } = framed(doc, a, b);
    const r = decoded(body, header);
    const data = r.inputs.map((i) => i.data);
    assert.deepEqual(data[0], { kind: 'raw', bytes: a });
    assert.deepEqual(data[1], { kind: 'json', values: [5] });
    assert.deepEqual(data[2], { kind: 'raw', bytes: b });
    assert.deepEqual(data[3], { kind: 'raw', bytes: new Uint8Array(0) });
    for (const d of data)
      if (d.kind === 'raw') assert.equal(d.bytes.buffer, body.buffer, 'zero-copy');
    assert.equal(r.inputs[0]?.parameters['binary_data_size'], 8);
  });

  void it('refuses binary sizes that overrun the bytes present, naming the input', () => {
    const { body, header } = framed(
      { inputs: [binInput('A', 8), binInput('B', 8)] },
      new Uint8Array(12),
    );
    throwsCode(
      () => decodeInferBody(body, header),
      'BYTE_SIZE_MISMATCH',
      'input B: parameters.binary_data_size is 8, but only 4 bytes of binary data remain after the JSON header',
    );
  });

  void it('refuses bytes no input accounts for', () => {
    const one = framed({ inputs: [binInput('A', 8)] }, new Uint8Array(12));
    throwsCode(
      () => decodeInferBody(one.body, one.header),
      'BYTE_SIZE_MISMATCH',
      'the binary inputs declare 8 bytes in total (the last one, input A, ends there), but 12 bytes follow the JSON header',
    );
    const none = framed(
      { inputs: [{ name: 'J', datatype: 'INT8', shape: [1], data: [5] }] },
      new Uint8Array(3),
    );
    throwsCode(
      () => decodeInferBody(none.body, none.header),
      'BYTE_SIZE_MISMATCH',
      'no input declares parameters.binary_data_size, but 3 bytes follow the JSON header',
    );
  });

  void it('refuses an input with both data and binary_data_size', () => {
    const { body, header } = framed(
      { inputs: [{ ...binInput('A', 4), data: [1] }] },
      new Uint8Array(4),
    );
    throwsCode(
      () => decodeInferBody(body, header),
      'BAD_REQUEST',
      "input A: expected only one of 'data' and parameters.binary_data_size, got both",
    );
  });

  void it('refuses binary_data_size that is not a non-negative safe integer', () => {
    for (const size of [-1, 1.5, '4', 2 ** 53, true]) {
      const { body, header } = framed(
        {
          inputs: [
            { name: 'A', datatype: 'FP32', shape: [1], parameters: { binary_data_size: size } },
          ],
        },
        new Uint8Array(4),
      );
      throwsCode(
        () => decodeInferBody(body, header),
        'BAD_PARAMETER',
        /^input A: parameters\.binary_data_size must be an integer >= 0, got /,
      );
    }
  });

  void it('without the header, binary_data_size > 0 asks for the header; 0 is an empty tensor', () => {
    throwsCode(
      () => decodeInferBody(jsonBytes({ inputs: [binInput('A', 4)] }), undefined),
      'BAD_REQUEST',
      'input A: parameters.binary_data_size is 4, but the request has no binary data; send the JSON ' +
        'size in the Inference-Header-Content-Length header and the tensor bytes after the JSON',
    );
    const r = decoded(jsonBytes({ inputs: [binInput('A', 0)] }), undefined);
    assert.deepEqual(r.inputs[0]?.data, { kind: 'raw', bytes: new Uint8Array(0) });
  });

  void it('parses only the header bytes as JSON', () => {
    const { body, header } = framed({ inputs: [binInput('A', 4)] }, utf8('}}}}'));
    assert.equal(decoded(body, header).inputs[0]?.name, 'A');
    throwsCode(() => decodeInferBody(body, String(Number(header) - 1)), 'BAD_JSON');
  });
});
