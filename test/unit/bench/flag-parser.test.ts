// The one parser of every bench subcommand: values and defaults from a flag table, both spellings
// of short and long flags, the errors, `--` and the --help rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HELP_FLAG,
  helpText,
  parseFlags,
  splitRest,
  tokenize,
  type FlagTable,
} from '../../../bench/options/flag-parser.js';

const TABLE = {
  'duration-secs': { kind: 'string', default: '20', help: 'Measured time, s' },
  'out-dir': { kind: 'string', short: 'o', help: 'Where to write' },
  'server-arg': { kind: 'string', repeat: true, help: 'Extra server flag' },
  'no-publish': { kind: 'flag', help: 'Do not publish' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

void describe('parseFlags', () => {
  void it('gives each flag its default, or undefined, false and [] when absent', () => {
    const { help, values } = parseFlags([], TABLE);
    assert.equal(help, false);
    assert.deepEqual(values, {
      'duration-secs': '20',
      'out-dir': undefined,
      'server-arg': [],
      'no-publish': false,
      help: false,
    });
  });

  void it('reads --flag value, --flag=value, -o value and -ovalue, and repeats in order', () => {
    const a = parseFlags(
      ['--duration-secs', '5', '-o', 'x', '--server-arg=--a', '--server-arg', '--b'],
      TABLE,
    );
    assert.equal(a.values['duration-secs'], '5');
    assert.equal(a.values['out-dir'], 'x');
    assert.deepEqual(a.values['server-arg'], ['--a', '--b']);
    assert.equal(parseFlags(['-oy'], TABLE).values['out-dir'], 'y');
    assert.equal(parseFlags(['-o=z'], TABLE).values['out-dir'], 'z');
    assert.equal(parseFlags(['--no-publish'], TABLE).values['no-publish'], true);
    assert.equal(parseFlags(['--no-publish=false'], TABLE).values['no-publish'], false);
    assert.equal(parseFlags(['-h'], TABLE).help, true);
  });

  void it('refuses unknown, repeated, value-less and stray arguments', () => {
    assert.throws(() => parseFlags(['--nope'], TABLE), /unknown flag --nope \(see --help\)/);
    assert.throws(() => parseFlags(['-x'], TABLE), /unknown flag -x/);
    assert.throws(() => parseFlags(['-o', 'a', '-o', 'b'], TABLE), /--out-dir given twice/);
    assert.throws(() => parseFlags(['--out-dir'], TABLE), /--out-dir needs a value/);
    assert.throws(() => parseFlags(['--no-publish=yes'], TABLE), /takes no value/);
    assert.throws(() => parseFlags(['stray'], TABLE), /unexpected argument "stray"/);
    // Object.prototype's names are not flags.
    assert.throws(() => parseFlags(['--constructor'], TABLE), /unknown flag --constructor/);
  });

  void it('refuses a flag of another tool with the reason given', () => {
    assert.throws(
      () => tokenize(['--sync'], TABLE, { sync: 'always asynchronous' }),
      /perf_analyzer's --sync is not supported here: always asynchronous/,
    );
  });
});

void describe('splitRest', () => {
  void it('splits at the first --', () => {
    assert.deepEqual(splitRest(['-o', 'x', '--', '--a', '--']), {
      flags: ['-o', 'x'],
      rest: ['--a', '--'],
    });
    assert.deepEqual(splitRest(['-o', 'x']), { flags: ['-o', 'x'], rest: [] });
  });
});

void describe('helpText', () => {
  void it('has one row per flag, with its short name and default', () => {
    const text = helpText('Usage: x', TABLE);
    assert.match(text, /^Usage: x\n\nFlags:\n/);
    assert.match(text, /^ {6}--duration-secs +Measured time, s \(default: 20\)$/m);
    assert.match(text, /^ {2}-o, --out-dir +Where to write$/m);
    assert.match(text, /^ {2}-h, --help +Print this help$/m);
    assert.equal(text.trimEnd().split('\n').length, 3 + Object.keys(TABLE).length);
  });
});
