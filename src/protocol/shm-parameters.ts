// The shared-memory parameters of one input or requested output (Triton's shared-memory extension):
// `shared_memory_region` (string), `shared_memory_byte_size` and `shared_memory_offset` (integers
// >= 0). Read here once for every transport, with Triton's rules and words
// (ParseSharedMemoryParams): region and byte size together, offset and byte size only with a region.

import { fail } from '../errors.js';
import type { Parameters, SharedMemoryData } from './inference-request.js';

export const SHM_REGION = 'shared_memory_region';
export const SHM_BYTE_SIZE = 'shared_memory_byte_size';
export const SHM_OFFSET = 'shared_memory_offset';

/** The tensor's region reference, or undefined when its parameters name none. */
export function sharedMemoryParameters(
  tensor: string,
  params: Parameters,
): SharedMemoryData | undefined {
  // Every tensor of every request passes here: the usual answer is three property checks.
  if (!Object.hasOwn(params, SHM_REGION)) {
    const stray = Object.hasOwn(params, SHM_OFFSET)
      ? SHM_OFFSET
      : Object.hasOwn(params, SHM_BYTE_SIZE)
        ? SHM_BYTE_SIZE
        : undefined;
    if (stray === undefined) return undefined;
    throw fail(
      'BAD_PARAMETER',
      `'${stray}' can not be specified without '${SHM_REGION}' parameter for tensor '${tensor}'`,
    );
  }
  const region = params[SHM_REGION];
  if (typeof region !== 'string') {
    throw fail(
      'BAD_PARAMETER',
      `invalid value type for '${SHM_REGION}' parameter for tensor '${tensor}', expected string, ` +
        `got ${typeof region}`,
    );
  }
  if (!Object.hasOwn(params, SHM_BYTE_SIZE)) {
    throw fail(
      'BAD_PARAMETER',
      `'${SHM_BYTE_SIZE}' must be specified along with '${SHM_REGION}' parameter for tensor ` +
        `'${tensor}'`,
    );
  }
  return {
    kind: 'shm',
    region,
    offset: Object.hasOwn(params, SHM_OFFSET) ? count(tensor, params, SHM_OFFSET) : 0,
    byteSize: count(tensor, params, SHM_BYTE_SIZE),
  };
}

/**
 * Triton reads these as uint64 (size_t). A JSON integer past 2^53 arrives here rounded to the
 * nearest double; it is kept, not refused, so that the region's bounds check answers it with
 * Triton's words ("Invalid offset ...", "Integer overflow detected ...") as Triton would for the
 * exact value: no region is that large, so the rounding cannot turn a refusal into a success.
 */
const UINT64_LIMIT = 2 ** 64;

function count(tensor: string, params: Parameters, key: string): number {
  const v = params[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > UINT64_LIMIT) {
    throw fail(
      'BAD_PARAMETER',
      `invalid value for '${key}' parameter for tensor '${tensor}': expected an integer >= 0, ` +
        `got ${JSON.stringify(v)}`,
    );
  }
  return v;
}
