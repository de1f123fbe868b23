// Which model names may name a directory of the repository. Names flow into filesystem paths, so
// anything that could escape the repository (Triton CVE-2023-31036 / CVE-2025-23316) is refused
// before any filesystem access: the grammar is a whitelist, and ".", ".." are never names.

import { fail } from '../errors.js';

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** True when `name` is a legal model directory name (`...`, `..my_model`, `model..1` are legal). */
export function isValidModelName(name: string): boolean {
  return NAME.test(name) && name !== '.' && name !== '..';
}

export function assertValidModelName(name: string): void {
  if (!isValidModelName(name)) {
    throw fail(
      'BAD_MODEL_NAME',
      `invalid model name ${JSON.stringify(name.slice(0, 200))}: expected 1-128 characters of ` +
        `[A-Za-z0-9_.-], not "." or ".."`,
    );
  }
}
