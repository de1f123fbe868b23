// Trimming the native heap through the FFI package: on this project's machines (x64 Linux, glibc,
// koffi installed by npm ci) the call reaches glibc and gives back freed memory; elsewhere it
// reports why it does nothing instead of throwing.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { trimNativeHeap, trimUnavailableReason } from '../../../src/memory/trim-native-heap.js';

const glibc =
  process.platform === 'linux' &&
  (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
    ?.glibcVersionRuntime !== undefined;

void describe('trimNativeHeap', () => {
  void it(
    'reaches glibc malloc_trim where glibc and koffi are present',
    { skip: !glibc && 'not glibc' },
    () => {
      assert.equal(existsSync(new URL('../../../../node_modules/koffi', import.meta.url)), true);
      assert.equal(trimUnavailableReason(), undefined);
      // Free a few MiB of small native blocks (Buffers below the pool size are malloc'd in
      // chunks), so there is something to give back; the result is glibc's "released memory" flag.
      let keep: Buffer[] | undefined = Array.from({ length: 4096 }, () =>
        Buffer.allocUnsafeSlow(4096),
      );
      assert.equal(keep.length, 4096);
      keep = undefined;
      assert.equal(typeof trimNativeHeap(), 'boolean');
    },
  );
});
