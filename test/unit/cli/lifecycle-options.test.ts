// The lifecycle flags as the command line parses them (parseArgs): readiness, exit on a failed
// load, the shutdown bounds, and the refusal of a bad value naming what was expected.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs, type ServerOptions } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('lifecycle flags', () => {
  void it("default to Triton's: strict readiness, exit on a failed load, 30 s to stop, no drain", () => {
    const o = parse();
    assert.deepEqual(
      [o.strictReadiness, o.exitOnError, o.exitTimeoutSecs, o.drainDelaySecs],
      [true, true, 30, 0],
    );
  });

  void it('take booleans and whole seconds; the drain delay a day at most', () => {
    const o = parse(
      '--strict-readiness=false',
      '--exit-on-error',
      'no',
      '--exit-timeout-secs=0',
      '--drain-delay-secs=86400',
    );
    assert.deepEqual(
      [o.strictReadiness, o.exitOnError, o.exitTimeoutSecs, o.drainDelaySecs],
      [false, false, 0, 86400],
    );
    refuses(
      ['--drain-delay-secs=86401'],
      "--drain-delay-secs: expected an integer between 0 and 86400, got '86401'",
    );
    refuses(
      ['--exit-timeout-secs=1.5'],
      `--exit-timeout-secs: expected an integer between 0 and ${Number.MAX_SAFE_INTEGER}, got '1.5'`,
    );
  });

  void it('--server-name: 1 to 64 letters, digits, dots, underscores or hyphens', () => {
    assert.equal(parse('--server-name=my_server-1.0').serverName, 'my_server-1.0');
    for (const bad of ['', 'two words', 'x'.repeat(65)]) {
      refuses(
        [`--server-name=${bad}`],
        `--server-name: expected 1 to 64 letters, digits, '.', '_' or '-', got '${bad.slice(0, 64)}'`,
      );
    }
  });
});
