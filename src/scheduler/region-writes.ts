// A lone large request's outputs that name a shared-memory region, handed to its worker to write
// there itself (RunRequest.regionWrites), and the worker's answer folded back into the request's
// outputs. Written in the worker, ONNX Runtime's result never travels to the main thread: it is
// garbage in the worker, which collects right after a large run (workers/ort-worker.ts), where on
// the main thread each one waited for V8's next major GC and several piled up under a stream of
// large requests (issue 28: 7× the tensor in peak RSS at 64 MiB, N=50). The main thread also no
// longer blocks on the write.

import type { RegionWrite } from '../shared-memory/region-write.js';
import type { ScheduledOutput } from './scheduler.js';
import type { ValidatedRequest } from './validated-request.js';

/** Where each of `request`'s region outputs goes; undefined when it names none. */
export function outputRegionWrites(request: ValidatedRequest): RegionWrite[] | undefined {
  const writes: RegionWrite[] = [];
  for (const o of request.outputs) {
    if (o.shm === undefined) continue;
    writes.push(o.shm.region.writeTarget(o.name, o.shm.offset, o.shm.byteSize));
  }
  return writes.length === 0 ? undefined : writes;
}

/** The outputs, with those the worker wrote marked with the bytes it wrote. */
export function withWritten(
  parts: ScheduledOutput[][],
  written: Readonly<Record<string, number>> | undefined,
): ScheduledOutput[][] {
  if (written === undefined) return parts;
  return parts.map((outputs) =>
    outputs.map((o) => {
      const bytes = written[o.name];
      return bytes === undefined ? o : { ...o, writtenBytes: bytes };
    }),
  );
}
