// The logging flags as the command line parses them (parseArgs): Triton's defaults, the values
// each takes and the exact refusal of a bad one.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_OPTIONS, parseArgs, type ServerOptions } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('logging flags', () => {
  void it('default to every severity, no verbose records, JSON lines on stdout', () => {
    const o = parse();
    assert.deepEqual(
      [o.logVerbose, o.logInfo, o.logWarning, o.logError, o.logFormat, o.logFile],
      [0, true, true, true, 'json', ''],
    );
    assert.equal(DEFAULT_OPTIONS.logFormat, 'json');
  });

  void it('take a verbosity, each severity as a boolean, a format and a file', () => {
    const o = parse(
      '--log-verbose=2',
      '--log-info=false',
      '--log-warning',
      '0',
      '--log-error=off',
      '--log-format',
      'ISO8601',
      '--log-file=/var/log/infernode.log',
    );
    assert.deepEqual(
      [o.logVerbose, o.logInfo, o.logWarning, o.logError, o.logFormat, o.logFile],
      [2, false, false, false, 'ISO8601', '/var/log/infernode.log'],
    );
    assert.equal(parse('--log-format=default').logFormat, 'default');
  });

  void it('refuse a format, a verbosity or a severity they do not know, naming what they take', () => {
    refuses(
      ['--log-format=xml'],
      "--log-format: expected one of json, default, ISO8601, got 'xml'",
    );
    refuses(
      ['--log-format=JSON'],
      "--log-format: expected one of json, default, ISO8601, got 'JSON'",
    );
    refuses(
      ['--log-verbose=-1'],
      `--log-verbose: expected an integer between 0 and ${Number.MAX_SAFE_INTEGER}, got '-1'`,
    );
    refuses(['--log-info=maybe'], "--log-info: expected true or false, got 'maybe'");
  });
});
