// Throwaway folders under the OS temp folder that remove themselves: each one made here is deleted
// when the test process exits, passed or failed, so a test that forgets (or never reaches) its own
// clean-up leaves nothing behind in /tmp. Removing one earlier is fine: the exit hook forces.

import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const made = new Set<string>();

function removeAtExit(dir: string): string {
  if (made.size === 0) {
    process.once('exit', () => {
      for (const d of made) rmSync(d, { recursive: true, force: true });
    });
  }
  made.add(dir);
  return dir;
}

/** A new empty folder `<tmpdir>/<prefix>XXXXXX`, removed when this process exits. */
export async function tempDir(prefix: string): Promise<string> {
  return removeAtExit(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** `tempDir`, synchronously. */
export function tempDirSync(prefix: string): string {
  return removeAtExit(mkdtempSync(path.join(os.tmpdir(), prefix)));
}
