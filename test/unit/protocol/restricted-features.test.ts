// The restricted-feature spec both flags share (`<category>[,<category>...]:<key>=<value>`), in each
// flag's own words, and the header comparison.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseRestrictionSpec,
  RESTRICTED_CATEGORIES,
  secretMatches,
  type SpecWording,
} from '../../../src/protocol/restricted-features.js';
import { throwsCode } from './expect-error.js';

const HTTP: SpecWording = { flag: '--http-restricted-api', category: 'category', key: 'header' };
const GRPC: SpecWording = { flag: '--grpc-restricted-protocol', category: 'protocol', key: 'key' };

void describe('parseRestrictionSpec', () => {
  void it("knows Triton's nine categories, in Triton's order", () => {
    assert.deepEqual(RESTRICTED_CATEGORIES, [
      'health',
      'metadata',
      'inference',
      'shared-memory',
      'model-config',
      'model-repository',
      'statistics',
      'trace',
      'logging',
    ]);
  });

  void it('splits categories, key and value; the value keeps every = and : after the first =', () => {
    assert.deepEqual(parseRestrictionSpec('inference:X-Key=abc', HTTP), {
      categories: ['inference'],
      key: 'X-Key',
      value: 'abc',
    });
    assert.deepEqual(parseRestrictionSpec(' health , metadata,trace : Admin =a=b:c ', HTTP), {
      categories: ['health', 'metadata', 'trace'],
      key: 'Admin',
      value: 'a=b:c ',
    });
    assert.deepEqual(parseRestrictionSpec('logging:k=', GRPC), {
      categories: ['logging'],
      key: 'k',
      value: '',
    });
  });

  void it('refuses a malformed spec, in the words of the flag that gave it', () => {
    for (const bad of ['inference', 'inference:key', ':k=v', 'inference:=v', '']) {
      throwsCode(
        () => parseRestrictionSpec(bad, HTTP),
        'BAD_REQUEST',
        `--http-restricted-api: expected <category>[,<category>...]:<header>=<value>, got '${bad}'`,
      );
    }
    throwsCode(
      () => parseRestrictionSpec('inference', GRPC),
      'BAD_REQUEST',
      "--grpc-restricted-protocol: expected <protocol>[,<protocol>...]:<key>=<value>, got 'inference'",
    );
  });

  void it('refuses an unknown category, naming the ones there are', () => {
    const known = RESTRICTED_CATEGORIES.join(', ');
    throwsCode(
      () => parseRestrictionSpec('inference,infer:k=v', HTTP),
      'BAD_REQUEST',
      `--http-restricted-api: unknown category 'infer'; expected one of ${known}`,
    );
    throwsCode(
      () => parseRestrictionSpec('inference,:k=v', GRPC),
      'BAD_REQUEST',
      `--grpc-restricted-protocol: unknown protocol ''; expected one of ${known}`,
    );
  });
});

void describe('secretMatches', () => {
  void it('accepts exactly the configured value', () => {
    assert.equal(secretMatches('s3cret', 's3cret'), true);
    assert.equal(secretMatches('', ''), true);
    assert.equal(secretMatches('h\u00e9llo \u{1f600}', 'h\u00e9llo \u{1f600}'), true);
  });

  void it('refuses any other value, a missing one, and values of other lengths without throwing', () => {
    // timingSafeEqual throws on buffers of unequal length: these pass only because both sides are
    // digests of one size, which is also why the secret's length takes no part in the timing.
    assert.equal(secretMatches('s3creT', 's3cret'), false);
    assert.equal(secretMatches('s3cre', 's3cret'), false);
    assert.equal(secretMatches('s3crets', 's3cret'), false);
    assert.equal(secretMatches('x'.repeat(100_000), 's3cret'), false);
    assert.equal(secretMatches('', 's3cret'), false);
    assert.equal(secretMatches(undefined, 's3cret'), false);
    assert.equal(secretMatches(undefined, ''), false);
  });
});
