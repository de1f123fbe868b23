// infernode-bench's one command line: the subcommand list, each subcommand's --help read from its
// flag table, and the errors every subcommand reports alike (unknown subcommand or flag: exit 2).
// Nothing here starts a server.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SUBCOMMANDS } from '../../bench/subcommands.js';
import { DIST, REPO_ROOT } from '../helpers/paths.js';
import { toolingSkipped } from '../helpers/tooling-suites.js';

const cli = (...args: string[]): { code: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [path.join(DIST, 'bench', 'cli.js'), ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

void describe('infernode-bench', { skip: toolingSkipped('bench') }, () => {
  void it('--help lists every subcommand', () => {
    const r = cli('--help');
    assert.equal(r.code, 0, r.stderr);
    for (const s of SUBCOMMANDS) assert.match(r.stdout, new RegExp(`^  ${s.name} +\\S`, 'm'));
  });

  void it('without a subcommand prints the list and exits 2', () => {
    const r = cli();
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^Subcommands:/m);
  });

  void it('refuses an unknown subcommand with exit code 2', () => {
    const r = cli('benchmark');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown subcommand "benchmark": expected one of run, compare,/);
  });

  for (const s of SUBCOMMANDS) {
    void it(`${s.name} --help lists every flag of its table`, async () => {
      const { flags } = await s.load();
      const r = cli(s.name, '--help');
      assert.equal(r.code, 0, r.stderr);
      for (const name of Object.keys(flags)) assert.match(r.stdout, new RegExp(`--${name}\\b`));
    });
  }

  void it('refuses an unknown flag with exit code 2 and says where the flags are', () => {
    const r = cli('soak', '--no-such-flag');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^infernode-bench soak: unknown flag --no-such-flag \(see --help\)$/m);
  });

  void it('every subcommand has its npm script alias', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const s of SUBCOMMANDS) {
      const script = s.name === 'run' ? 'bench' : `bench:${s.name}`;
      assert.equal(pkg.scripts[script], `node dist/bench/cli.js ${s.name}`);
    }
  });

  void it('refuses the perf_analyzer flags a subcommand does not implement, with the reason', () => {
    const r = cli('run', '--measurement-mode', 'count_windows');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /perf_analyzer's --measurement-mode is not supported here/);
    const c = cli('compare', '--shared-memory', 'system');
    assert.equal(c.code, 2);
    assert.match(c.stderr, /perf_analyzer's --shared-memory is not supported here: .*run --shared/);
  });

  void it("run takes perf_analyzer's --shared-memory and --output-shared-memory-size", () => {
    const help = cli('run', '--help');
    assert.match(help.stdout, /--shared-memory +none \| system/);
    assert.match(help.stdout, /--output-shared-memory-size .*\(102400\)/);
    // Parsed and checked before any server is reached.
    const refusals: [string[], RegExp][] = [
      [['--shared-memory', 'cuda'], /--shared-memory: expected none or system, got "cuda"/],
      [['--shared-memory', 'system', '-i', 'ws'], /-i http or -i grpc/],
      [['--output-shared-memory-size', '64'], /needs --shared-memory system/],
      [['--shared-memory', 'system', '--output-shared-memory-size', '0'], /bytes >= 1/],
    ];
    for (const [args, message] of refusals) {
      const r = cli('run', '-m', 'simple', ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });
});
