// A `model_warmup` input_data_file: the file `<model>/warmup/<file>` holding one sample of one input
// (the sample's dims, no batch dim), read only from inside warmup/ and checked against the dims.

import type { Stats } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fail } from '../errors.js';
import { fixedByteLength } from '../memory/byte-size.js';
import { DEFAULT_MAX_BLOCK_BYTES } from '../memory/tensor-block.js';
import { BYTES_PREFIX, BytesWalker } from '../tensor/bytes-layout.js';
import type { Datatype } from '../tensor/datatypes.js';
import { elementCount, shapeText } from '../tensor/shape.js';

/** Triton's folder for warmup data, next to config.pbtxt and the version directories. */
export const WARMUP_FOLDER = 'warmup';

export interface WarmupFileInput {
  /** Names the file in errors: `model 'm' warmup sample 's' input 'i'`. */
  readonly model: string;
  readonly sample: string;
  readonly input: string;
  /** input_data_file as config.pbtxt gives it, relative to `<model>/warmup/`. */
  readonly file: string;
  readonly datatype: Datatype;
  /** The sample's dims, without the batch dim: the file holds one row. */
  readonly dims: readonly number[];
}

/**
 * The bytes of one sample of `input`, read from `<modelDir>/warmup/<file>`. Fixed-size datatypes
 * need exactly elements × element size bytes; BYTES needs exactly the dims' element count of
 * length-prefixed elements and nothing after them. Throws CONFIG_INVALID for a name that leaves
 * warmup/ (`..`, an absolute path, a symlink resolving outside it) or data of the wrong size, and
 * MODEL_LOAD_FAILED for a file that is missing or cannot be read.
 */
export async function readWarmupFile(modelDir: string, w: WarmupFileInput): Promise<Uint8Array> {
  const at = `model '${w.model}' warmup sample '${w.sample}' input '${w.input}'`;
  const shown = `${WARMUP_FOLDER}/${w.file}`;
  const dir = path.join(modelDir, WARMUP_FOLDER);
  const target = path.resolve(dir, w.file);
  if (path.isAbsolute(w.file) || !isInside(dir, target)) {
    throw fail(
      'CONFIG_INVALID',
      `${at}: input_data_file "${w.file}" must name a file inside the model's ${WARMUP_FOLDER}/ directory`,
    );
  }
  let real: string;
  let realDir: string;
  try {
    real = await realpath(target);
    realDir = await realpath(dir);
  } catch (e) {
    throw unreadable(at, shown, e);
  }
  // The name stays inside warmup/, but a symlink on the way may not: compare where both resolve to
  // (warmup/ itself may be a symlink, as Kubernetes volumes make them, and that is fine).
  if (!isInside(realDir, real)) {
    throw fail(
      'CONFIG_INVALID',
      `${at}: input_data_file "${w.file}" resolves outside the model's ${WARMUP_FOLDER}/ directory`,
    );
  }
  const bytes = await readBounded(at, shown, real, w);
  if (w.datatype === 'BYTES') checkBytesElements(at, shown, bytes, w.dims);
  return bytes;
}

/** `p` is strictly below `dir` (not `dir` itself). */
function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Reads the file through one handle, so the size checked is the size read. The size is checked
 * before reading: a wrong or huge file fails without being loaded into memory.
 */
async function readBounded(
  at: string,
  shown: string,
  real: string,
  w: WarmupFileInput,
): Promise<Uint8Array> {
  let handle: FileHandle;
  try {
    handle = await open(real, 'r');
  } catch (e) {
    throw unreadable(at, shown, e);
  }
  try {
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch (e) {
      throw unreadable(at, shown, e);
    }
    if (!stats.isFile()) throw unreadable(at, shown, new Error('not a regular file'));
    const size = stats.size;
    if (w.datatype !== 'BYTES') {
      const expected = fixedByteLength(w.datatype, w.dims);
      if (size !== expected) {
        throw fail(
          'CONFIG_INVALID',
          `${at}: ${shown} holds ${size} bytes, expected ${expected} (one sample of ` +
            `${w.datatype} dims ${shapeText(w.dims)}, without the batch dim)`,
        );
      }
    } else if (size > DEFAULT_MAX_BLOCK_BYTES) {
      throw fail(
        'CONFIG_INVALID',
        `${at}: ${shown} holds ${size} bytes, expected at most ${DEFAULT_MAX_BLOCK_BYTES}`,
      );
    }
    try {
      return new Uint8Array(await handle.readFile());
    } catch (e) {
      throw unreadable(at, shown, e);
    }
  } finally {
    await handle.close();
  }
}

/** Missing or unreadable: the errno code, never the absolute path Node puts in its message. */
function unreadable(at: string, shown: string, e: unknown): Error {
  const code = (e as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return fail('MODEL_LOAD_FAILED', `${at}: expected the file ${shown}, found none`);
  }
  const why = typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
  return fail('MODEL_LOAD_FAILED', `${at}: cannot read ${shown} (${why})`);
}

/** BYTES data: exactly the dims' element count of length-prefixed elements, nothing after. */
function checkBytesElements(
  at: string,
  shown: string,
  bytes: Uint8Array,
  dims: readonly number[],
): void {
  const needed = elementCount(dims);
  const walk = new BytesWalker(bytes);
  walk.skip(needed);
  let found: string | undefined;
  if (walk.broken === 'prefix') {
    found = `${walk.count} element(s), then ${walk.detail} byte(s), too few for a length prefix`;
  } else if (walk.broken === 'overrun') {
    found =
      `${walk.count} element(s), then one declaring ${walk.detail} byte(s) where ` +
      `${walk.remaining - BYTES_PREFIX} remain`;
  } else if (walk.count < needed) {
    found = `${walk.count} element(s)`;
  } else if (walk.remaining > 0) {
    found = `${walk.count} element(s), then ${walk.remaining} more byte(s)`;
  }
  if (found !== undefined) {
    throw fail(
      'CONFIG_INVALID',
      `${at}: ${shown} holds ${found}, expected ${needed} BYTES element(s) for dims ` +
        `${shapeText(dims)}, each a 4-byte little-endian length then its bytes`,
    );
  }
}
