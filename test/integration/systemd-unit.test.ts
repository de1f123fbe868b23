// The files in deploy/systemd as systemd reads them: `systemd-analyze verify` accepts the unit alone
// and with the GPU drop-in without a single warning, `systemd-sysusers` creates the user from the
// sysusers file, and the flags the unit and the example environment file pass parse as infernode's
// options, with a stop timeout above the drain's.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_OPTIONS, parseArgs } from '../../src/cli/server-options.js';
import { REPO_ROOT } from '../helpers/paths.js';

const DEPLOY = path.join(REPO_ROOT, 'deploy', 'systemd');
const UNIT = path.join(DEPLOY, 'infernode.service');

/** Whether `tool` runs here; the tests that need it skip with this reason when it does not. */
function missing(tool: string): string | false {
  return spawnSync(tool, ['--version']).status === 0
    ? false
    : `${tool} is not installed (Debian's systemd package has it; .ci/run installs it)`;
}

/** `systemd-analyze verify` on `unit`: its exit status and everything it printed. */
function verify(unit: string): { status: number | null; output: string } {
  const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

/** `KEY=value` settings of a unit or environment file, skipping comments. */
function settings(text: string, key: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

/** A systemd time span in seconds (the forms the unit uses: `45s`, `10min`). */
function seconds(span: string): number {
  const m = /^(\d+)(s|min)$/.exec(span);
  assert.ok(m !== null, `a time span: ${span}`);
  return Number(m[1]) * (m[2] === 'min' ? 60 : 1);
}

void describe('deploy/systemd', () => {
  let dir: string;
  let unitText: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-unit-'));
    unitText = await readFile(UNIT, 'utf8');
    // verify checks that ExecStart's program exists: the unit names /usr/bin/node, where Debian's
    // and NodeSource's packages put it; the copy names the node running this test instead.
    const execStart = /^ExecStart=\/usr\/bin\/node /m;
    assert.match(unitText, execStart);
    const nodeHere = unitText.replace(execStart, `ExecStart=${process.execPath} `);
    await writeFile(path.join(dir, 'infernode.service'), nodeHere);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it(
    'systemd-analyze verify accepts the unit, alone and with the GPU drop-in',
    { skip: missing('systemd-analyze') },
    async () => {
      const unit = path.join(dir, 'infernode.service');
      assert.deepEqual(verify(unit), { status: 0, output: '' });
      // verify reads drop-ins from <unit>.d next to the unit, as systemd does from /etc.
      await mkdir(`${unit}.d`);
      await cp(path.join(DEPLOY, 'infernode-gpu.conf'), path.join(`${unit}.d`, 'gpu.conf'));
      assert.deepEqual(verify(unit), { status: 0, output: '' });
      // And it would say so: a key it does not know is reported (with exit status 0, hence the
      // assertions on the output above).
      await writeFile(path.join(`${unit}.d`, 'zz-typo.conf'), '[Service]\nWatchDogSec=30s\n');
      assert.match(verify(unit).output, /Unknown key 'WatchDogSec'/);
    },
  );

  void it(
    'systemd-sysusers creates the infernode user and group, with no login',
    { skip: missing('systemd-sysusers') },
    async () => {
      const root = path.join(dir, 'root');
      await mkdir(path.join(root, 'etc'), { recursive: true });
      const r = spawnSync(
        'systemd-sysusers',
        [`--root=${root}`, path.join(DEPLOY, 'infernode.sysusers')],
        { encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stderr);
      const passwd = await readFile(path.join(root, 'etc', 'passwd'), 'utf8');
      assert.match(passwd, /^infernode:x:\d+:\d+:[^:]*:\/:\/usr\/sbin\/nologin$/m);
      assert.match(await readFile(path.join(root, 'etc', 'group'), 'utf8'), /^infernode:x:\d+:$/m);
    },
  );

  void it('is Type=notify with a watchdog, and never MemoryDenyWriteExecute', () => {
    assert.deepEqual(settings(unitText, 'Type'), ['notify']);
    assert.deepEqual(settings(unitText, 'NotifyAccess'), ['main']);
    assert.equal(settings(unitText, 'WatchdogSec').length, 1);
    assert.deepEqual(settings(unitText, 'MemoryDenyWriteExecute'), []);
    assert.deepEqual(settings(unitText, 'User'), ['infernode']);
  });

  void it('passes flags that parse, with an exit timeout below TimeoutStopSec', async () => {
    const envText = await readFile(path.join(DEPLOY, 'infernode.env'), 'utf8');
    const stopSecs = seconds(settings(unitText, 'TimeoutStopSec')[0] ?? '');
    // The unit's default and every example in the environment file, commented out or not.
    const argLines = [
      ...settings(unitText, 'Environment').filter((e) => e.startsWith('INFERNODE_ARGS=')),
      ...envText
        .split('\n')
        .map((l) => l.replace(/^#/, ''))
        .filter((l) => l.startsWith('INFERNODE_ARGS=')),
    ].map((l) => l.slice('INFERNODE_ARGS='.length));
    assert.ok(argLines.length >= 4, `INFERNODE_ARGS examples: ${argLines.length}`);
    for (const line of argLines) {
      // systemd splits an unquoted $INFERNODE_ARGS at whitespace, and no shell expands `*`.
      const { options, warnings } = parseArgs(line.split(/\s+/));
      assert.deepEqual(warnings, [], line);
      assert.ok(options.modelRepositories.length > 0, line);
      assert.ok(
        options.exitTimeoutSecs < stopSecs,
        `--exit-timeout-secs ${options.exitTimeoutSecs} < TimeoutStopSec ${stopSecs}: ${line}`,
      );
    }
    assert.ok(DEFAULT_OPTIONS.exitTimeoutSecs < stopSecs);
  });
});
