// The private model directory a load call's `file:<version>/<name>` parameters are written to, as
// Triton does: a fresh directory under the system temp directory, created 0700 by the server, that
// holds only what the call sent. Every name is checked before anything is written, so a call with
// one bad name writes nothing; files are created exclusively and never through a symlink.

import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fail, type InferenceServerError } from '../errors.js';

/** A version directory name, as the repository scan accepts it. */
const VERSION = /^[1-9][0-9]{0,17}$/;
/** One path segment of a file name: no separators, no NUL, not `.` or `..`. */
const SEGMENT = /^[^/\\\0]+$/;

export interface OverrideDirectory {
  /** The model directory: `<private root>/<model name>`. */
  readonly modelDir: string;
  /** Removes the private root and everything in it. */
  remove(): Promise<void>;
}

/**
 * Checks a `file:` parameter's name (the part after `file:`) and returns its segments. Refused with
 * BAD_MODEL_FILE: an absolute path, `..` or `.` segments, backslashes, empty segments, a first
 * segment that is not a version number, or a name with no file under the version.
 */
export function fileOverrideSegments(name: string): string[] {
  const refuse = (why: string): never => {
    throw badName(name, why);
  };
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) refuse('is an absolute path');
  const segments = name.split('/');
  for (const s of segments) {
    if (s === '.' || s === '..') refuse(`has a "${s}" segment`);
    if (!SEGMENT.test(s)) refuse('has an empty segment, a backslash or a NUL');
  }
  if (!VERSION.test(segments[0] ?? '')) refuse('does not start with a version number');
  if (segments.length < 2) refuse('names no file under the version');
  return segments;
}

/** BAD_MODEL_FILE naming the parameter (cut short) and what is wrong with it; never a path. */
function badName(name: string, why: string): InferenceServerError {
  return fail(
    'BAD_MODEL_FILE',
    `file override "file:${name.slice(0, 200)}" ${why}; expected "file:<version>/<file name>" ` +
      `inside the model directory`,
  );
}

/**
 * Writes `files` (name after `file:` -> bytes) into a new private directory for `model` (a name
 * already checked by assertValidModelName). Throws BAD_MODEL_FILE before writing anything when a
 * name is refused.
 */
export async function writeOverrideDirectory(
  model: string,
  files: ReadonlyMap<string, Uint8Array>,
): Promise<OverrideDirectory> {
  const checked = [...files].map(([name, bytes]) => ({
    name,
    segments: fileOverrideSegments(name),
    bytes,
  }));
  const root = await mkdtemp(path.join(os.tmpdir(), 'infernode-model-'));
  const remove = (): Promise<void> => rm(root, { recursive: true, force: true });
  let current = '';
  try {
    // The real path: a symlinked temp directory would otherwise fail the containment check below.
    const modelDir = path.join(await realpath(root), model);
    await mkdir(modelDir, { mode: 0o700 });
    for (const { name, segments, bytes } of checked) {
      current = name;
      const file = path.join(modelDir, ...segments);
      // Belt and braces: the segment rules already keep every file inside modelDir.
      if (!file.startsWith(modelDir + path.sep)) {
        throw fail('BAD_MODEL_FILE', `file override leaves the model directory`);
      }
      const parent = path.dirname(file);
      await mkdir(parent, { recursive: true, mode: 0o700 });
      // Every directory on the way was just created by this call; check anyway that none resolves
      // elsewhere, then create the file exclusively and without following a symlink.
      if ((await realpath(parent)) !== parent) {
        throw fail('BAD_MODEL_FILE', `file override's directory resolves outside the model`);
      }
      const handle = await open(
        file,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
    }
    return { modelDir, remove };
  } catch (e) {
    await remove();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw fail(
        'BAD_MODEL_FILE',
        'file overrides name the same file twice, or a file and a directory',
      );
    }
    // The file system's own limits (a segment past NAME_MAX, a path past PATH_MAX, both measured
    // with the private directory in front) are the client's to respect: a 400 naming the
    // parameter. The errno's message carries that private path, so it is never passed on.
    if (code === 'ENAMETOOLONG') throw badName(current, 'is longer than the file system allows');
    if (code !== undefined) {
      throw fail(
        'INTERNAL',
        `writing file override "file:${current.slice(0, 200)}" failed: ${code}`,
      );
    }
    throw e;
  }
}
