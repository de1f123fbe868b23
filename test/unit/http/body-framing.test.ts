// Unit tests for the framing decision made from request headers before any body byte is read.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import { bodyFraming, bodyTooLarge } from '../../../src/http/body-framing.js';

function framingOf(headers: Record<string, string>, max = 1000): ReturnType<typeof bodyFraming> {
  return bodyFraming((name) => headers[name], max);
}

function refusal(headers: Record<string, string>, max = 1000): InferenceServerError {
  try {
    framingOf(headers, max);
  } catch (error) {
    assert.ok(error instanceof InferenceServerError, 'only catalogued errors are thrown');
    return error;
  }
  assert.fail(`expected ${JSON.stringify(headers)} to be refused`);
}

void test('no framing headers, or Content-Length 0, means no body', () => {
  assert.deepEqual(framingOf({}), { kind: 'none' });
  assert.deepEqual(framingOf({ 'content-length': '0' }), { kind: 'none' });
  assert.deepEqual(framingOf({ 'content-length': '000' }), { kind: 'none' });
});

void test('Content-Length up to the limit gives the exact length', () => {
  assert.deepEqual(framingOf({ 'content-length': '1' }), { kind: 'length', length: 1 });
  assert.deepEqual(framingOf({ 'content-length': '1000' }), { kind: 'length', length: 1000 });
});

void test('Content-Length over the limit is BODY_TOO_LARGE with the size as sent and the limit', () => {
  const e = refusal({ 'content-length': '1001' });
  assert.equal(e.code, 'BODY_TOO_LARGE');
  assert.equal(e.status, 400);
  assert.equal(
    e.message,
    'request JSON size of 1001 bytes exceeds the maximum allowed input size of 1000 bytes. ' +
      'Use --http-max-input-size to increase the limit.',
  );
  // Too many digits for a double: reported digit for digit, leading zeros dropped.
  const huge = refusal({ 'content-length': '000123456789012345678901234567890' });
  assert.match(huge.message, /^request JSON size of 123456789012345678901234567890 bytes exceeds/);
});

void test("a raw binary body over the limit is worded as Triton words a raw input's size", () => {
  const e = refusal({ 'content-length': '1001', 'inference-header-content-length': '0' });
  assert.equal(
    e.message,
    'Raw input has a byte_size (1001 bytes) that exceeds the maximum allowed value of 1000 bytes. ' +
      'Use --http-max-input-size to increase the limit.',
  );
});

void test('a JSON header with binary tensor data over the limit is worded for what arrived', () => {
  // Issue 33: it was refused as "request JSON size of ...", which the body is not.
  const e = refusal({ 'content-length': '1001', 'inference-header-content-length': '80' });
  assert.equal(e.code, 'BODY_TOO_LARGE');
  assert.equal(
    e.message,
    'request size of 1001 bytes (a JSON header and binary tensor data) exceeds the maximum ' +
      'allowed input size of 1000 bytes. Use --http-max-input-size to increase the limit.',
  );
});

void test('a Content-Length that is not one plain decimal number is BAD_REQUEST', () => {
  for (const value of ['', 'abc', '-1', '+1', '1.0', ' 1', '1 ', '0x10', '3, 4', '3, 3']) {
    const e = refusal({ 'content-length': value });
    assert.equal(e.code, 'BAD_REQUEST', value);
    assert.ok(e.message.includes(`"${value}"`), `the message shows what arrived: ${e.message}`);
  }
});

void test('chunked is accepted alone, in any case; other codings and TE+CL are BAD_REQUEST', () => {
  assert.deepEqual(framingOf({ 'transfer-encoding': 'chunked' }), { kind: 'chunked' });
  assert.deepEqual(framingOf({ 'transfer-encoding': 'Chunked' }), { kind: 'chunked' });
  for (const te of ['gzip', 'gzip, chunked', 'chunked, chunked', 'identity']) {
    assert.equal(refusal({ 'transfer-encoding': te }).code, 'BAD_REQUEST', te);
  }
});

void test('with both headers, Transfer-Encoding decides and Content-Length is ignored (RFC 9112 §6.3)', () => {
  for (const cl of ['5', '999999999999', 'abc']) {
    const headers = { 'transfer-encoding': 'chunked', 'content-length': cl };
    assert.deepEqual(framingOf(headers), { kind: 'chunked' }, cl);
  }
  const gzip = refusal({ 'transfer-encoding': 'gzip, chunked', 'content-length': '5' });
  assert.equal(
    gzip.message,
    'unsupported Transfer-Encoding: expected "chunked", got "gzip, chunked"',
  );
});

void test('bodyTooLarge formats numbers and digit strings alike', () => {
  assert.equal(bodyTooLarge(5, 4, 'json').message, bodyTooLarge('5', 4, 'json').message);
});
