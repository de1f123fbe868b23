// A client's shared-memory key (`shm_open` name) checked and resolved to its file under /dev/shm.
// A key is a name, never a path: leading '/'s (shm_open drops them), no other '/', not '.' or
// '..', no NUL, at most NAME_MAX bytes; the file is opened without following a symlink and must be
// a regular file. Together these keep every registration inside the shm directory.

import { constants, fstatSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { fail } from '../errors.js';

/** Where POSIX shared memory lives on Linux (glibc's shm_open). */
export const SHM_DIR = '/dev/shm';

/** NAME_MAX: the longest file name /dev/shm takes. */
const MAX_KEY_BYTES = 255;

/** Keys Triton keeps for its Python backend's own regions (kTritonSharedMemoryRegionPrefix). */
export const RESERVED_KEY_PREFIX = 'triton_python_backend_shm_region_';

/**
 * Triton's checks on a key before it looks at the registry (ValidateSharedMemoryKey), in its
 * words: a key of nothing but '/' names no object, and keys with Triton's reserved prefix are
 * refused so that a client cannot register the server's own regions.
 */
export function checkRegisterKey(region: string, key: string): void {
  const name = key.replace(/^\/+/, '');
  if (name === '') {
    throw fail(
      'SHM_BAD_KEY',
      `cannot register shared memory region '${printable(region)}' - invalid shm key ` +
        `'${printable(key)}'`,
    );
  }
  if (name.startsWith(RESERVED_KEY_PREFIX)) {
    throw fail(
      'SHM_BAD_KEY',
      `cannot register shared memory region '${printable(region)}' with key '${printable(key)}' ` +
        `as the key contains the reserved prefix '${RESERVED_KEY_PREFIX}'`,
    );
  }
}

/**
 * The file name `key` names under the shm directory; throws SHM_BAD_KEY for anything else.
 * Leading slashes are dropped, all of them, as glibc's shm_open does.
 */
export function shmFileName(key: string): string {
  const name = key.replace(/^\/+/, '');
  const reason =
    name === ''
      ? 'it is empty'
      : name.includes('/')
        ? "it contains '/' after the first character"
        : name === '.' || name === '..'
          ? `it is '${name}'`
          : name.includes('\0')
            ? 'it contains a NUL character'
            : Buffer.byteLength(name) > MAX_KEY_BYTES
              ? `it is longer than ${MAX_KEY_BYTES} bytes`
              : undefined;
  if (reason !== undefined) {
    throw fail(
      'SHM_BAD_KEY',
      `shared memory key '${printable(key)}' is not a shared-memory name: ${reason}`,
    );
  }
  return name;
}

/**
 * Opens the file `key` names read-write, refusing symlinks (O_NOFOLLOW) and anything but a regular
 * file. Returns the fd; the caller owns it. Triton's wording when the file cannot be opened.
 */
export function openShmKey(key: string, dir: string): number {
  const file = path.join(dir, shmFileName(key));
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch {
    throw fail('SHM_NOT_OPENED', `Unable to open shared memory region: '${printable(key)}'`);
  }
  try {
    if (!fstatSync(fd).isFile()) {
      throw fail(
        'SHM_BAD_KEY',
        `shared memory key '${printable(key)}' does not name a regular file in ${dir}`,
      );
    }
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** A client-supplied string as it may appear in a message: bounded, control characters escaped. */
export function printable(s: string): string {
  const cut = s.length > 300 ? `${s.slice(0, 300)}...` : s;
  return cut.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
