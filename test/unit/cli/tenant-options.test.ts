// The tenant flags as the command line parses them (parseArgs): the tenant header (lower-cased,
// a valid header name), the quota file that needs it, and the cap on tenant metric labels.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs, type ServerOptions } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('tenant flags', () => {
  void it('default to no tenants, no quotas and 32 tenant labels', () => {
    const o = parse();
    assert.deepEqual([o.tenantHeader, o.quotaFile, o.tenantMetricsMax], [undefined, undefined, 32]);
  });

  void it('take a header name (lower-cased), a quota file and a label cap up to 10000', () => {
    const o = parse(
      '--tenant-header=X-Tenant-Id',
      '--quota-file=/etc/q.json',
      '--tenant-metrics-max=0',
    );
    assert.deepEqual(
      [o.tenantHeader, o.quotaFile, o.tenantMetricsMax],
      ['x-tenant-id', '/etc/q.json', 0],
    );
    assert.equal(parse('--tenant-metrics-max=10000').tenantMetricsMax, 10000);
    refuses(
      ['--tenant-metrics-max=10001'],
      "--tenant-metrics-max: expected an integer between 0 and 10000, got '10001'",
    );
  });

  void it('refuse a quota file without a header, and a header no request can carry', () => {
    refuses(['--quota-file=/etc/q.json'], '--quota-file needs --tenant-header');
    for (const bad of ['x tenant', ':authority', '', 'x'.repeat(129)]) {
      refuses(
        [`--tenant-header=${bad}`],
        `--tenant-header: expected a header name, got '${bad.slice(0, 128)}'`,
      );
    }
  });
});
