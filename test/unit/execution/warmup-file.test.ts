// Reading a model_warmup input_data_file: exact sizes for fixed-size datatypes, an element walk for
// BYTES, and names that must stay inside `<model>/warmup/` (.., absolute paths, symlinks out).

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readWarmupFile, type WarmupFileInput } from '../../../src/execution/warmup-file.js';
import type { Datatype } from '../../../src/tensor/datatypes.js';

let root: string;
let modelDir: string;
before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'infernode-warmup-file-'));
  modelDir = path.join(root, 'm');
  await mkdir(path.join(modelDir, 'warmup', 'sub'), { recursive: true });
  await writeFile(path.join(root, 'outside.bin'), new Uint8Array(8));
  await writeFile(path.join(modelDir, 'config.pbtxt'), 'name: "m"');
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes `warmup/<name>` and reads it back as `datatype` of `dims`. */
async function readAs(
  name: string,
  bytes: Uint8Array,
  datatype: Datatype,
  dims: readonly number[],
): Promise<Uint8Array> {
  await writeFile(path.join(modelDir, 'warmup', name), bytes);
  return readWarmupFile(modelDir, input(name, datatype, dims));
}

const input = (file: string, datatype: Datatype, dims: readonly number[]): WarmupFileInput => ({
  model: 'm',
  sample: 'w1',
  input: 'INPUT0',
  file,
  datatype,
  dims,
});

/** BYTES elements: each a 4-byte little-endian length, then its bytes. */
function elements(...texts: string[]): Uint8Array {
  const parts = texts.map((t) => {
    const b = Buffer.from(t, 'utf8');
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(b.length);
    return Buffer.concat([prefix, b]);
  });
  return new Uint8Array(Buffer.concat(parts));
}

const AT = "model 'm' warmup sample 'w1' input 'INPUT0'";

void describe('readWarmupFile', () => {
  void it('fixed-size datatypes: the exact bytes of one sample', async () => {
    const data = new Uint8Array(new Int32Array([1, -2, 3, 4, 5, 6]).buffer);
    assert.deepEqual(await readAs('int32.bin', data, 'INT32', [2, 3]), data);
    const half = Uint8Array.of(0x00, 0x3c, 0x00, 0xc0);
    assert.deepEqual(await readAs('fp16.bin', half, 'FP16', [2]), half);
    assert.deepEqual(
      await readAs('bool.bin', Uint8Array.of(1, 0, 1), 'BOOL', [3]),
      Uint8Array.of(1, 0, 1),
    );
  });

  void it('a file in a subdirectory of warmup/', async () => {
    const data = new Uint8Array(8);
    assert.deepEqual(await readAs('sub/two.bin', data, 'FP32', [2]), data);
  });

  void it('fixed size mismatch: expected vs found, with the dims', async () => {
    await assert.rejects(readAs('short.bin', new Uint8Array(60), 'INT32', [16]), {
      code: 'CONFIG_INVALID',
      message: `${AT}: warmup/short.bin holds 60 bytes, expected 64 (one sample of INT32 dims [16], without the batch dim)`,
    });
    // A file written for batch_size rows is refused too: it holds one row, as in Triton.
    await assert.rejects(readAs('rows.bin', new Uint8Array(128), 'INT32', [16]), {
      code: 'CONFIG_INVALID',
      message: `${AT}: warmup/rows.bin holds 128 bytes, expected 64 (one sample of INT32 dims [16], without the batch dim)`,
    });
  });

  void it('BYTES: exactly the element count the dims need, including empty elements', async () => {
    const data = elements('ab', '', 'héllo', 'x');
    assert.deepEqual(await readAs('strings.bin', data, 'BYTES', [2, 2]), data);
    assert.deepEqual(await readAs('empty.bin', new Uint8Array(0), 'BYTES', [0]), new Uint8Array(0));
  });

  void it('BYTES: too few, too many, trailing bytes and broken elements are refused', async () => {
    const expected =
      'expected 3 BYTES element(s) for dims [3], each a 4-byte little-endian length then its bytes';
    const cases: Array<[string, Uint8Array, string]> = [
      ['few.bin', elements('a', 'b'), '2 element(s)'],
      ['many.bin', elements('a', 'b', 'c', 'd'), '3 element(s), then 5 more byte(s)'],
      [
        'prefix.bin',
        Uint8Array.from([...elements('a', 'b'), 7, 0]),
        '2 element(s), then 2 byte(s), too few for a length prefix',
      ],
      [
        'overrun.bin',
        Uint8Array.from([...elements('a'), 9, 0, 0, 0, 0x61, 0x62]),
        '1 element(s), then one declaring 9 byte(s) where 2 remain',
      ],
    ];
    for (const [name, bytes, found] of cases) {
      await assert.rejects(readAs(name, bytes, 'BYTES', [3]), {
        code: 'CONFIG_INVALID',
        message: `${AT}: warmup/${name} holds ${found}, ${expected}`,
      });
    }
  });

  void it('a missing file, or a missing warmup/ directory', async () => {
    await assert.rejects(readWarmupFile(modelDir, input('absent.bin', 'FP32', [1])), {
      code: 'MODEL_LOAD_FAILED',
      message: `${AT}: expected the file warmup/absent.bin, found none`,
    });
    await assert.rejects(readWarmupFile(root, input('x.bin', 'FP32', [1])), {
      code: 'MODEL_LOAD_FAILED',
      message: `${AT}: expected the file warmup/x.bin, found none`,
    });
  });

  void it('a directory is not a file', async () => {
    await assert.rejects(readWarmupFile(modelDir, input('sub', 'FP32', [1])), {
      code: 'MODEL_LOAD_FAILED',
      message: `${AT}: cannot read warmup/sub (not a regular file)`,
    });
  });

  void it('names that leave warmup/: .., absolute paths, warmup/ itself', async () => {
    for (const file of ['../x', '../config.pbtxt', 'sub/../../config.pbtxt', '..', '', '.']) {
      await assert.rejects(readWarmupFile(modelDir, input(file, 'FP32', [2])), {
        code: 'CONFIG_INVALID',
        message: `${AT}: input_data_file "${file}" must name a file inside the model's warmup/ directory`,
      });
    }
    // Absolute, even when it points into warmup/: the name must be relative to it.
    await writeFile(path.join(modelDir, 'warmup', 'abs.bin'), new Uint8Array(8));
    for (const file of [path.join(root, 'outside.bin'), path.join(modelDir, 'warmup', 'abs.bin')]) {
      await assert.rejects(readWarmupFile(modelDir, input(file, 'FP32', [2])), {
        code: 'CONFIG_INVALID',
        message: `${AT}: input_data_file "${file}" must name a file inside the model's warmup/ directory`,
      });
    }
  });

  void it('a symlink resolving outside warmup/ is refused; one staying inside is read', async () => {
    await symlink(path.join(root, 'outside.bin'), path.join(modelDir, 'warmup', 'escape.bin'));
    await symlink(path.join(root), path.join(modelDir, 'warmup', 'up'));
    for (const file of ['escape.bin', 'up/outside.bin']) {
      await assert.rejects(readWarmupFile(modelDir, input(file, 'FP32', [2])), {
        code: 'CONFIG_INVALID',
        message: `${AT}: input_data_file "${file}" resolves outside the model's warmup/ directory`,
      });
    }
    await writeFile(path.join(modelDir, 'warmup', 'target.bin'), new Uint8Array(8));
    await symlink('target.bin', path.join(modelDir, 'warmup', 'alias.bin'));
    assert.deepEqual(
      await readWarmupFile(modelDir, input('alias.bin', 'FP32', [2])),
      new Uint8Array(8),
    );
  });

  void it('warmup/ itself may be a symlink (as Kubernetes volumes mount it)', async () => {
    const linked = path.join(root, 'linked');
    await mkdir(path.join(root, 'data'), { recursive: true });
    await writeFile(path.join(root, 'data', 'x.bin'), new Uint8Array(4));
    await mkdir(linked);
    await symlink(path.join(root, 'data'), path.join(linked, 'warmup'));
    assert.deepEqual(await readWarmupFile(linked, input('x.bin', 'FP32', [1])), new Uint8Array(4));
  });
});
