// A one-shot response's outputs that go to shared memory (Triton's shared-memory extension): the
// request named a registered region for them, so the response says where they are, not the bytes.

import type { ResponseOutput } from '../protocol/inference-request.js';
import { SHM_BYTE_SIZE, SHM_OFFSET, SHM_REGION } from '../protocol/shm-parameters.js';
import type { ScheduledOutput } from '../scheduler/scheduler.js';
import type { ValidatedOutput } from '../scheduler/validated-request.js';
import { checkOutputFits } from '../shared-memory/region-write.js';

/**
 * Outputs the request named a region for are written there (Triton's shared-memory extension) and
 * answered with their parameters and no data; the others are returned as they are. Those its
 * worker wrote already (`writtenBytes`, region-writes.ts) are only answered.
 */
export function intoSharedMemory(
  requested: readonly ValidatedOutput[],
  outputs: readonly ResponseOutput[],
  scheduled: readonly ScheduledOutput[],
): ResponseOutput[] {
  return outputs.map((o, i) => {
    const target = requested.find((r) => r.name === o.name)?.shm;
    if (target === undefined) return o;
    let bytes = scheduled[i]?.writtenBytes;
    if (bytes === undefined) {
      bytes = o.data.byteLength;
      checkOutputFits(o.name, target.byteSize, bytes);
      target.region.write(target.offset, o.data);
    }
    return {
      name: o.name,
      datatype: o.datatype,
      shape: o.shape,
      data: new Uint8Array(0),
      binary: false,
      inSharedMemory: true,
      parameters: {
        [SHM_REGION]: target.region.name,
        [SHM_BYTE_SIZE]: bytes,
        ...(target.offset !== 0 && { [SHM_OFFSET]: target.offset }),
      },
    };
  });
}
