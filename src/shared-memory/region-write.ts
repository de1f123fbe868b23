// Writing an output's bytes into a client's registered region, by its fd: the one place that does
// it, for the main thread (ShmRegion.write) and for an ORT worker that writes a lone large
// request's output straight from ONNX Runtime's result (RegionWrite, crossing the worker boundary
// as plain data: fds are process-wide, so a worker thread may use the main thread's). The file's
// size is checked before every chunk and once more after the last: a region its owner truncates
// between validation and the write, or while it is written, fails the request with SHM_TRUNCATED,
// never a silent short write. (A positional write past the end of a file extends it rather than
// failing, so a truncation landing between a chunk's check and its write is found by the next
// check, or by the one after the last chunk when the file then ends short of the window's end.)

import { fstatSync, writeSync } from 'node:fs';
import { fail } from '../errors.js';

/** Bytes written per pwrite, each after a size check: 8 MiB keeps the checks cheap (µs each). */
const CHUNK_BYTES = 8 * 1024 * 1024;

/** Where an output goes: the region's open fd and the file position of the request's window. */
export interface RegionWrite {
  /** The output this is for. */
  readonly output: string;
  /** The region's registered name and key, for messages. */
  readonly region: string;
  readonly key: string;
  /** The region's fd; held open by the request until it is answered. */
  readonly fd: number;
  /** File position: the region's registered offset plus the request's offset. */
  readonly position: number;
  /** The bytes the request set aside for the output. */
  readonly byteSize: number;
}

/** Triton's error when an output is larger than the region space its request named. */
export function checkOutputFits(output: string, byteSize: number, bytes: number): void {
  if (bytes > byteSize) {
    throw fail(
      'SHM_BAD_SLICE',
      `shared memory size specified with the request for output '${output}' ` +
        `(${byteSize} bytes) should be at least ${bytes} bytes to hold the results`,
    );
  }
}

/** Writes `bytes` at the target's position, checking the file's size around every chunk. */
export function writeIntoRegion(target: RegionWrite, bytes: Uint8Array): void {
  const end = target.position + bytes.byteLength;
  let done = 0;
  do {
    checkFileSize(target, end);
    const n = Math.min(CHUNK_BYTES, bytes.byteLength - done);
    let chunkDone = 0;
    while (chunkDone < n) {
      chunkDone += writeSync(
        target.fd,
        bytes,
        done + chunkDone,
        n - chunkDone,
        target.position + done + chunkDone,
      );
    }
    done += n;
  } while (done < bytes.byteLength);
  checkFileSize(target, end);
}

function checkFileSize(target: RegionWrite, end: number): void {
  if (fstatSync(target.fd).size < end) throw truncated(target.region, target.key, end);
}

/** SHM_TRUNCATED: the region's file ends before `end`. */
export function truncated(region: string, key: string, end: number) {
  return fail(
    'SHM_TRUNCATED',
    `shared memory region '${region}' (key '${key}') is smaller than when it was ` +
      `registered: expected at least ${end} bytes in the file, its owner shrank it`,
  );
}
