// How parseArgs reads the words of a command line before any group checks its flags: `--name=value`
// and `--name value`, bare booleans, repeats, and the refusal of anything that is not a flag of the
// table (options/flag-values.ts); and that --help lists every flag of that table once.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FLAGS, helpText, parseArgs } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';

function refuses(argv: readonly string[], message: string): void {
  assert.throws(() => parseArgs(argv), { message }, argv.join(' '));
}

void describe('command line words', () => {
  void it('take a value after = or as the next word; the last of a flag given twice wins', () => {
    assert.equal(parseArgs([REPO, '--http-port=9']).options.httpPort, 9);
    assert.equal(parseArgs([REPO, '--http-port', '9']).options.httpPort, 9);
    assert.equal(parseArgs([REPO, '--http-port=9', '--http-port', '10']).options.httpPort, 10);
    assert.equal(parseArgs([REPO, '--log-file=a=b']).options.logFile, 'a=b');
  });

  void it('keep every value of a repeatable flag, in order', () => {
    const o = parseArgs(['--model-store', '/a', REPO, '--model-store=/b']).options;
    // --model-store is an alias: its values follow --model-repository's.
    assert.deepEqual(o.modelRepositories, ['/models', '/a', '/b']);
    assert.ok(Object.isFrozen(o.modelRepositories));
  });

  void it('read a bare boolean as true unless a boolean word follows it', () => {
    assert.equal(parseArgs([REPO, '--allow-grpc']).options.allowGrpc, true);
    assert.equal(parseArgs([REPO, '--allow-grpc', 'off']).options.allowGrpc, false);
    assert.equal(parseArgs(['--allow-grpc', 'NO', REPO]).options.allowGrpc, false);
    // A word that is not a boolean is not taken: it is the next argument, and refused as one.
    refuses([REPO, '--allow-grpc', 'maybe'], "unexpected argument 'maybe': flags start with --");
    // A plain flag takes no value, even a boolean word.
    refuses([REPO, '--trace-stages', 'true'], "unexpected argument 'true': flags start with --");
  });

  void it('refuse a stray word, an unknown flag and a flag missing its value', () => {
    refuses([REPO, 'models'], "unexpected argument 'models': flags start with --");
    refuses([REPO, '-v'], "unexpected argument '-v': flags start with --");
    refuses([REPO, '--http_port=1'], 'unknown flag --http_port; see --help');
    refuses([REPO, '--http-port'], 'flag --http-port needs a value');
  });

  void it("refuse the names of an object's own properties, which are no flags", () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      refuses([REPO, `--${name}=1`], `unknown flag --${name}; see --help`);
      refuses([REPO, `--${name}`, 'x'], `unknown flag --${name}; see --help`);
    }
  });

  void it('need a repository unless --help or --version is asked for', () => {
    refuses([], '--model-repository is required');
    refuses(['--http-port=1'], '--model-repository is required');
    assert.equal(parseArgs(['--help']).help, true);
    assert.equal(parseArgs(['--version']).version, true);
  });
});

void describe('--help and the flag table', () => {
  void it('lists every flag of the table once, in its order, with its help', () => {
    const listed = [...helpText().matchAll(/^ {2}--([a-z-]+) +(.*)$/gm)];
    assert.deepEqual(
      listed.map((m) => m[1]),
      Object.keys(FLAGS),
    );
    for (const [, name, help] of listed) {
      assert.equal(help, FLAGS[name as keyof typeof FLAGS].help, `--${name}`);
    }
    assert.ok(listed.length > 60, `${listed.length} flags listed`);
  });
});
