// The request recording flags as the command line parses them (parseArgs): off unless a directory
// is given, a share from 0 to 1, and a byte cap.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs, type ServerOptions } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('request recording flags', () => {
  void it('default to off, 1 % of requests, 256 MiB', () => {
    const o = parse();
    assert.deepEqual(
      [o.recordRequests, o.recordRequestsRate, o.recordRequestsMaxBytes],
      [undefined, 0.01, 256 * 1024 * 1024],
    );
  });

  void it('take a directory, a share from 0 to 1 and a byte count', () => {
    const o = parse(
      '--record-requests=/tmp/samples',
      '--record-requests-rate=0.25',
      '--record-requests-max-bytes=1024',
    );
    assert.deepEqual(
      [o.recordRequests, o.recordRequestsRate, o.recordRequestsMaxBytes],
      ['/tmp/samples', 0.25, 1024],
    );
    assert.equal(parse('--record-requests-rate=0').recordRequestsRate, 0);
    assert.equal(parse('--record-requests-rate=1').recordRequestsRate, 1);
  });

  void it('refuse a share that is not a number from 0 to 1', () => {
    for (const bad of ['', ' ', '1.5', '-0.1', 'half', 'NaN']) {
      refuses(
        [`--record-requests-rate=${bad}`],
        `--record-requests-rate expects a number from 0 to 1, got "${bad}"`,
      );
    }
  });
});
