// What a repository scan lists, from real directories in a temp dir: model directories with legal
// names (the whitelist runs before any path is built), the others reported as skipped, and each
// model's numeric version directories in numeric order.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listVersions, scanRepository } from '../../../src/repository/scan-repository.js';

/** Makes `root/<p>` for each entry: a trailing '/' makes a directory, anything else a file. */
async function tree(root: string, entries: readonly string[]): Promise<void> {
  for (const e of entries) {
    const p = path.join(root, e);
    if (e.endsWith('/')) await mkdir(p, { recursive: true });
    else {
      await mkdir(path.dirname(p), { recursive: true });
      await writeFile(p, '');
    }
  }
}

void describe('scanRepository', () => {
  let root = '';
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'infernode-scan-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  void it('lists model directories by name with their versions, and skips illegal names', async () => {
    const repo = path.join(root, 'names');
    await tree(repo, [
      'gamma/1/',
      'alpha/2/',
      'alpha/1/',
      'beta/',
      '.../',
      '..hidden/',
      'a-b_c.d/',
      `${'x'.repeat(128)}/`,
      `${'y'.repeat(129)}/`,
      'with space/',
      'caf\u00e9/',
      'semi;colon/',
      'README.md',
      'config.pbtxt',
    ]);
    const scan = await scanRepository(repo);
    assert.deepEqual(
      scan.models.map((m) => [m.name, m.versions]),
      [
        ['...', []],
        ['..hidden', []],
        ['a-b_c.d', []],
        ['alpha', [1, 2]],
        ['beta', []],
        ['gamma', [1]],
        ['x'.repeat(128), []],
      ],
    );
    for (const m of scan.models) assert.equal(m.dir, path.join(repo, m.name));
    // Files at the top level are neither models nor skipped directories.
    assert.deepEqual([...scan.skipped].sort(), [
      'caf\u00e9',
      'semi;colon',
      'with space',
      'y'.repeat(129),
    ]);
  });

  void it('returns nothing for an empty repository and rejects a missing one', async () => {
    const empty = path.join(root, 'empty');
    await mkdir(empty);
    assert.deepEqual(await scanRepository(empty), { models: [], skipped: [] });
    await assert.rejects(scanRepository(path.join(root, 'absent')), { code: 'ENOENT' });
  });

  // Triton's local filesystem stats each entry (stat follows symlinks), so a model directory that is
  // a symlink is served, and so is a version directory that is one.
  void it('follows symlinked model and version directories, as Triton does', async () => {
    const repo = path.join(root, 'links');
    const elsewhere = path.join(root, 'elsewhere');
    await tree(repo, ['real/1/', 'real/README.md']);
    await tree(elsewhere, ['v2/', 'shared/3/']);
    await symlink(path.join(repo, 'real'), path.join(repo, 'linked'), 'dir');
    await symlink(path.join(elsewhere, 'v2'), path.join(repo, 'real', '2'), 'dir');
    await symlink(path.join(elsewhere, 'shared'), path.join(repo, 'outside'), 'dir');
    // A symlink to a file is no more a model than a file is.
    await symlink(path.join(repo, 'real', 'README.md'), path.join(repo, 'notes'));
    const scan = await scanRepository(repo);
    assert.deepEqual(
      scan.models.map((m) => [m.name, m.versions]),
      [
        ['linked', [1, 2]],
        ['outside', [3]],
        ['real', [1, 2]],
      ],
    );
    assert.equal(scan.models[0]?.dir, path.join(repo, 'linked'));
    assert.deepEqual(scan.skipped, []);
  });

  void it('skips a dangling or looping symlink and says why, without failing the scan', async () => {
    const repo = path.join(root, 'dangling');
    await tree(repo, ['good/1/']);
    await symlink(path.join(repo, 'nowhere'), path.join(repo, 'gone'), 'dir');
    await symlink(path.join(repo, 'loop'), path.join(repo, 'loop'), 'dir');
    await symlink(path.join(repo, 'nowhere'), path.join(repo, 'good', '2'), 'dir');
    // The whitelist still runs first: an illegal name is skipped as such, never followed.
    await symlink(path.join(repo, 'nowhere'), path.join(repo, 'bad name'), 'dir');
    const heard: [string, string][] = [];
    const scan = await scanRepository(repo, (name, reason) => heard.push([name, reason]));
    assert.deepEqual(
      scan.models.map((m) => [m.name, m.versions]),
      [['good', [1]]],
    );
    assert.deepEqual(scan.skipped, ['bad name']);
    assert.deepEqual(heard, [
      ['gone', 'symlink cannot be followed (ENOENT)'],
      ['good/2', 'symlink cannot be followed (ENOENT)'],
      ['loop', 'symlink cannot be followed (ELOOP)'],
    ]);
  });
});

void describe('listVersions', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-versions-'));
    await tree(dir, [
      '10/',
      '9/',
      '1/',
      '0/',
      'v2/',
      '3a/',
      '-4/',
      '1.5/',
      '9007199254740991/',
      '9007199254740992/',
      `${'9'.repeat(19)}/`,
      '7',
      'config.pbtxt',
    ]);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('takes directories named by a positive safe integer, in numeric order', async () => {
    // 0 is not a version; 2^53 is not a safe integer; a file named 7 is not a version directory.
    assert.deepEqual(await listVersions(dir), [1, 9, 10, 9007199254740991]);
  });
});
