// --http-restricted-api: the flag's parsing (header case, header names, a category restricted
// twice), which endpoint belongs to which category, and the refusal a request gets.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from '../../../src/cli/server-options.js';
import { apiCategory } from '../../../src/http/api-category.js';
import {
  parseApiRestriction,
  parseApiRestrictions,
  RestrictedApis,
} from '../../../src/http/restricted-apis.js';
import { RESTRICTED_CATEGORIES } from '../../../src/protocol/restricted-features.js';
import { throwsCode } from '../protocol/expect-error.js';

const headers =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];

void describe('--http-restricted-api parsing', () => {
  void it('takes several categories and lower-cases the header name, not the value', () => {
    assert.deepEqual(parseApiRestriction('inference,model-repository:X-Admin-Key=S3cr=T'), {
      categories: ['inference', 'model-repository'],
      header: 'x-admin-key',
      value: 'S3cr=T',
    });
  });

  void it('refuses bad syntax, an unknown category and a header name no request can carry', () => {
    throwsCode(
      () => parseApiRestriction('inference=k'),
      'BAD_REQUEST',
      "--http-restricted-api: expected <category>[,<category>...]:<header>=<value>, got 'inference=k'",
    );
    throwsCode(
      () => parseApiRestriction('repository:k=v'),
      'BAD_REQUEST',
      `--http-restricted-api: unknown category 'repository'; expected one of ${RESTRICTED_CATEGORIES.join(', ')}`,
    );
    throwsCode(
      () => parseApiRestriction('inference:x key=v'),
      'BAD_REQUEST',
      "--http-restricted-api: 'x key' is not a valid header name, in 'inference:x key=v'",
    );
  });

  void it('refuses a category named in two restrictions, or twice in one', () => {
    const twice =
      "--http-restricted-api: restricted api 'health' can not be specified in multiple config groups";
    throwsCode(
      () => parseApiRestrictions(['health,metadata:a=1', 'inference,health:b=2']),
      'BAD_REQUEST',
      twice,
    );
    throwsCode(() => parseApiRestrictions(['health,health:a=1']), 'BAD_REQUEST', twice);
    // Restrictions built by an embedding application skip the flag parser; the table refuses too.
    const list = [parseApiRestriction('health:a=1'), parseApiRestriction('health:b=2')];
    throwsCode(() => new RestrictedApis(list), 'BAD_REQUEST', twice);
  });

  void it('is a repeatable flag of the command line, defaulting to none', () => {
    const base = ['--model-repository=r'];
    assert.deepEqual(parseArgs(base).options.httpRestrictedApis, []);
    const { options } = parseArgs([
      ...base,
      '--http-restricted-api=inference:K=v',
      '--http-restricted-api',
      'health,metadata:Admin=w',
    ]);
    assert.deepEqual(options.httpRestrictedApis, [
      { categories: ['inference'], header: 'k', value: 'v' },
      { categories: ['health', 'metadata'], header: 'admin', value: 'w' },
    ]);
    throwsCode(
      () =>
        parseArgs([...base, '--http-restricted-api=trace:a=1', '--http-restricted-api=trace:b=2']),
      'BAD_REQUEST',
      /restricted api 'trace' can not be specified in multiple config groups/,
    );
  });
});

void describe('apiCategory', () => {
  const cases: readonly [string, string | undefined][] = [
    ['/v2', 'metadata'],
    ['/v2/', 'metadata'],
    ['/v2/models/simple', 'metadata'],
    ['/v2/models/simple/versions/3', 'metadata'],
    ['/v2/health/live', 'health'],
    ['/v2/health/ready', 'health'],
    ['/v2/models/simple/ready', 'health'],
    ['/v2/models/simple/versions/1/ready', 'health'],
    ['/v2/models/simple/infer', 'inference'],
    ['/v2/models/simple/versions/1/infer', 'inference'],
    ['/v2/models/simple/config', 'model-config'],
    ['/v2/models/simple/versions/1/config', 'model-config'],
    ['/v2/models/stats', 'statistics'],
    ['/v2/models/simple/stats', 'statistics'],
    ['/v2/models/simple/versions/1/stats', 'statistics'],
    ['/v2/repository/index', 'model-repository'],
    ['/v2/repository/models/simple/load', 'model-repository'],
    ['/v2/repository/models/simple/unload', 'model-repository'],
    ['/v2/systemsharedmemory/status', 'shared-memory'],
    ['/v2/cudasharedmemory/region/r/register', 'shared-memory'],
    ['/v2/trace/setting', 'trace'],
    ['/v2/models/simple/trace/setting', 'trace'],
    ['/v2/models/simple/versions/2/trace/setting', 'trace'],
    ['/v2/logging', 'logging'],
    // Outside every category: these stay 404 whatever the restrictions.
    ['/', undefined],
    ['/v2/ws', undefined],
    ['/v2/models', undefined],
    ['/v2/models/simple/bogus', undefined],
    ['/v2/models/simple/versions/x/infer', undefined],
    ['/v2/models/simple/infer/more', undefined],
    ['/v2/healthz', undefined],
    ['/v2/loggingx', undefined],
    ['/v3/health/live', undefined],
  ];
  for (const [path, category] of cases) {
    void it(`${path} -> ${category ?? 'none'}`, () => {
      assert.equal(apiCategory(path), category);
    });
  }
});

void describe('RestrictedApis', () => {
  const apis = new RestrictedApis(
    parseApiRestrictions(['inference:X-Infer-Key=k1', 'health,metadata:Admin=k2']),
  );

  void it("refuses a request without its category's header, or with another value, in Triton's words", () => {
    const wrong: Record<string, string>[] = [
      {},
      { 'x-infer-key': 'k2' },
      { admin: 'k1' },
      { 'x-infer-key': 'k1 ' },
    ];
    for (const h of wrong) {
      const err = apis.refusal('inference', headers(h));
      assert.equal(err?.code, 'RESTRICTED_API');
      assert.equal(err.status, 403);
      assert.equal(err.message, "This API is restricted, expecting header 'x-infer-key'");
    }
    assert.equal(
      apis.refusal('metadata', headers({}))?.message,
      "This API is restricted, expecting header 'admin'",
    );
  });

  void it('lets through the right value, and every category nothing restricts', () => {
    assert.equal(apis.refusal('inference', headers({ 'x-infer-key': 'k1' })), undefined);
    assert.equal(apis.refusal('health', headers({ admin: 'k2' })), undefined);
    assert.equal(apis.refusal('statistics', headers({})), undefined);
    assert.equal(apis.refusal('model-repository', headers({})), undefined);
  });

  void it('decides every category once for a set of headers that may then go away', () => {
    const h: Record<string, string> = { admin: 'k2' };
    const access = apis.accessFor(headers(h));
    delete h['admin'];
    assert.equal(access('health'), undefined);
    assert.equal(access('metadata'), undefined);
    assert.equal(access('inference')?.code, 'RESTRICTED_API');
    assert.equal(access('logging'), undefined);
  });
});
