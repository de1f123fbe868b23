// The load API's `file:` parameters: which names are accepted, and that a refused call writes
// nothing while an accepted one writes exactly the files sent, inside a private directory.

import assert from 'node:assert/strict';
import { lstat, readdir, readFile, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { InferenceServerError } from '../../../src/errors.js';
import {
  fileOverrideSegments,
  writeOverrideDirectory,
} from '../../../src/repository/override-directory.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

async function tempEntries(): Promise<string[]> {
  return (await readdir(os.tmpdir())).filter((n) => n.startsWith('infernode-model-'));
}

function refused(e: unknown): boolean {
  return e instanceof InferenceServerError && e.code === 'BAD_MODEL_FILE' && e.status === 400;
}

void describe('file override names', () => {
  void it('accepts <version>/<file> and nested files under a version', () => {
    assert.deepEqual(fileOverrideSegments('1/model.onnx'), ['1', 'model.onnx']);
    assert.deepEqual(fileOverrideSegments('3/model.onnx/model.onnx'), [
      '3',
      'model.onnx',
      'model.onnx',
    ]);
    assert.deepEqual(fileOverrideSegments('12/..model'), ['12', '..model']);
  });

  for (const [name, why] of [
    ['../1/model.onnx', /"\.\." segment/],
    ['1/../../etc/passwd', /"\.\." segment/],
    ['1/./model.onnx', /"\." segment/],
    ['/etc/passwd', /absolute path/],
    ['C:/x', /absolute path/],
    ['1//model.onnx', /empty segment/],
    ['1/a\\..\\..\\b', /backslash/],
    ['1/a\0b', /NUL/],
    ['model.onnx', /version number/],
    ['01/model.onnx', /version number/],
    ['config.pbtxt', /version number/],
    ['1', /names no file/],
  ] as const) {
    void it(`refuses ${JSON.stringify(name)}`, () => {
      assert.throws(
        () => fileOverrideSegments(name),
        (e: unknown) => refused(e) && why.test((e as Error).message),
      );
    });
  }
});

void describe('the private model directory', () => {
  void it('holds exactly the files sent, owner-only, under <root>/<model>', async () => {
    const dir = await writeOverrideDirectory(
      'm',
      new Map([
        ['1/model.onnx', bytes('one')],
        ['2/model.onnx/model.onnx', bytes('two')],
      ]),
    );
    try {
      assert.equal(path.basename(dir.modelDir), 'm');
      assert.equal(await readFile(path.join(dir.modelDir, '1', 'model.onnx'), 'utf8'), 'one');
      assert.equal(
        await readFile(path.join(dir.modelDir, '2', 'model.onnx', 'model.onnx'), 'utf8'),
        'two',
      );
      assert.deepEqual((await readdir(dir.modelDir)).sort(), ['1', '2']);
      assert.equal((await stat(dir.modelDir)).mode & 0o077, 0, 'no access for group or others');
    } finally {
      await dir.remove();
    }
    await assert.rejects(stat(dir.modelDir));
  });

  void it('writes nothing when any name is refused', async () => {
    const before = await tempEntries();
    await assert.rejects(
      writeOverrideDirectory(
        'm',
        new Map([
          ['1/model.onnx', bytes('ok')],
          ['1/../../escape', bytes('no')],
        ]),
      ),
      refused,
    );
    assert.deepEqual(await tempEntries(), before);
    await assert.rejects(lstat(path.join(os.tmpdir(), 'escape')));
  });

  void it('refuses a file and a directory of the same name, and removes what it wrote', async () => {
    const before = await tempEntries();
    await assert.rejects(
      writeOverrideDirectory(
        'm',
        new Map([
          ['1/a', bytes('file')],
          ['1/a/b', bytes('under the file')],
        ]),
      ),
      refused,
    );
    assert.deepEqual(await tempEntries(), before);
  });

  void it('never writes through a symlink planted where a file goes', async () => {
    // The directory is fresh, so nothing can be planted in it before the call; what can exist is
    // a link the call itself would create, which the segment rules forbid. Check the open's flags
    // do their part anyway: a symlink at the target path is not followed.
    const dir = await writeOverrideDirectory('m', new Map([['1/model.onnx', bytes('x')]]));
    try {
      const outside = path.join(os.tmpdir(), `infernode-outside-${process.pid}`);
      await symlink(outside, path.join(dir.modelDir, '1', 'link'));
      const { open } = await import('node:fs/promises');
      const { constants } = await import('node:fs');
      await assert.rejects(
        open(
          path.join(dir.modelDir, '1', 'link'),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        ),
        /EEXIST|ELOOP/,
      );
      await assert.rejects(lstat(outside));
    } finally {
      await dir.remove();
    }
  });
});

void describe('file override names the file system cannot hold', () => {
  // Issue 33, defect 6: ENAMETOOLONG came back as a 500 whose message held the private directory.
  for (const [what, name] of [
    ['a segment longer than the file system allows', `1/${'a'.repeat(300)}.onnx`],
    [
      'a path longer than the file system allows',
      `1/${Array(40).fill('d'.repeat(200)).join('/')}/x`,
    ],
  ] as const) {
    void it(`refuses ${what} with 400 naming the parameter, and no path`, async () => {
      const before = await tempEntries();
      await assert.rejects(
        writeOverrideDirectory('m', new Map([[name, bytes('x')]])),
        (e: unknown) => {
          assert.ok(refused(e), String(e));
          const message = (e as Error).message;
          assert.match(message, /^file override "file:1\/[ad]+/);
          assert.ok(!message.includes(os.tmpdir()), message);
          assert.ok(!message.includes('infernode-model-'), message);
          return true;
        },
      );
      assert.deepEqual(await tempEntries(), before);
    });
  }
});
