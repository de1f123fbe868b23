// Unit tests for the strict chunked-body decoder used when a request carries both framing headers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { ChunkedDecoder } from '../../../src/http/chunked-decoder.js';

/** Feeds `wire` in pieces of `step` bytes; returns the data, whether it ended, and bytes left over. */
function decode(wire: string, step = wire.length): { data: string; done: boolean; rest: string } {
  const pieces: Buffer[] = [];
  const decoder = new ChunkedDecoder((bytes) => pieces.push(Buffer.from(bytes)));
  const bytes = Buffer.from(wire, 'latin1');
  let rest = '';
  for (let at = 0; at < bytes.length; at += step) {
    const piece = bytes.subarray(at, Math.min(at + step, bytes.length));
    const used = decoder.push(piece);
    if (decoder.done) {
      rest = Buffer.concat([piece.subarray(used), bytes.subarray(at + step)]).toString('latin1');
      break;
    }
    assert.equal(used, piece.length, 'everything is consumed until the body ends');
  }
  return { data: Buffer.concat(pieces).toString('latin1'), done: decoder.done, rest };
}

function refusal(wire: string): string {
  try {
    decode(wire);
  } catch (error) {
    assert.ok(error instanceof InferenceServerError);
    assert.equal(error.code, 'BAD_REQUEST');
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(wire)} to be refused`);
}

void test('decodes chunks split at every byte boundary, and reports what follows the body', () => {
  const wire = '5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\nGET / HTTP/1.1\r\n';
  for (const step of [1, 2, 3, 7, wire.length]) {
    assert.deepEqual(decode(wire, step), {
      data: 'hello world',
      done: true,
      rest: 'GET / HTTP/1.1\r\n',
    });
  }
  assert.deepEqual(decode('A\r\n0123456789\r\n0\r\n\r\n'), {
    data: '0123456789',
    done: true,
    rest: '',
  });
});

void test('an unfinished body is not done', () => {
  assert.equal(decode('5\r\nhel').done, false);
  assert.equal(decode('5\r\nhello\r\n0\r\n').done, false);
});

void test('bare LF, bad sizes, missing CRLF after data and bad trailers are BAD_REQUEST', () => {
  assert.equal(refusal('3\nabc\n0\n\n'), 'chunked body: expected CRLF line ends, got a bare LF');
  assert.match(refusal('-3\r\nabc\r\n'), /expected a hexadecimal chunk size, got "-3"/);
  assert.match(refusal('123456789\r\n'), /expected a hexadecimal chunk size/);
  assert.match(refusal(' 3\r\nabc\r\n'), /expected a hexadecimal chunk size/);
  assert.equal(refusal('3\r\nabcd\r\n'), 'chunked body: expected CRLF after the chunk data');
  assert.match(refusal('0\r\nno colon\r\n\r\n'), /expected trailer fields/);
  assert.match(refusal(`${'1'.repeat(5000)}\r\n`), /a line is longer than 4096 bytes/);
});

void test('an error thrown by the data callback stops decoding', () => {
  const decoder = new ChunkedDecoder(() => {
    throw new Error('stop');
  });
  assert.throws(() => decoder.push(Buffer.from('3\r\nabc\r\n')), /stop/);
});
