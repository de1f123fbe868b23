// The shared-memory side of request validation (Triton's shared-memory extension): the regions a
// request names, acquired as its tensors are checked, an input read from a region (its byte size
// against the input size limit and its shape) and an output bound to one. validate-request.ts owns
// the inline tensors and the order of the checks.

import { fail } from '../errors.js';
import { allocateRequestBytes } from '../memory/movable-buffers.js';
import type { DecodedOutput, SharedMemoryData } from '../protocol/inference-request.js';
import { sharedMemoryParameters } from '../protocol/shm-parameters.js';
import type { ValidatedInput, ValidatedOutput } from '../scheduler/validated-request.js';
import type { RegionRegistry } from '../shared-memory/region-registry.js';
import { RequestRegions } from '../shared-memory/request-regions.js';
import type { Datatype } from '../tensor/datatypes.js';
import { checkInputLimit } from './validate-input-shape.js';

/**
 * The request's shared-memory regions, made when its first tensor names one: requests that name
 * none pay nothing for the extension.
 */
export class RegionsOf {
  regions: RequestRegions | undefined;
  constructor(readonly registry: RegionRegistry | undefined) {}
  get(): RequestRegions {
    return (this.regions ??= new RequestRegions(this.registry));
  }
}

/** An input whose data lies in a region, its shape already checked. */
export interface RegionInput {
  readonly model: string;
  readonly name: string;
  readonly datatype: Datatype;
  /** Bytes per element; 0 for BYTES. */
  readonly elementBytes: number;
  readonly count: number;
  /** The shape the model takes (after any reshape) and the shape the request sent. */
  readonly shape: readonly number[];
  readonly requestShape: readonly number[];
}

/**
 * Acquires the input's region and checks its byte size against the input size limit and, for
 * fixed-size elements, its shape. Fixed-size elements: the validated input. BYTES: the region's
 * bytes, read into request memory, for the caller to check as raw data.
 */
export function regionInput(
  shm: RegionsOf,
  input: RegionInput,
  data: SharedMemoryData,
  bytesLeft: number,
): ValidatedInput | Uint8Array {
  const region = shm.get().acquire(data.region, data.offset, data.byteSize);
  checkInputLimit(input.name, data.byteSize, bytesLeft);
  // Fixed-size elements: the size says all, and `write` reads the region straight into the
  // batch block (the one copy). Both batchers fail only the member whose `write` throws (a
  // region shrunk since): the others still run.
  if (input.elementBytes > 0) {
    checkSharedMemorySize(input.model, input.name, data.byteSize, input.elementBytes * input.count);
    const { offset, byteSize } = data;
    return {
      name: input.name,
      datatype: input.datatype,
      shape: input.shape,
      requestShape: input.requestShape,
      byteLength: byteSize,
      write: (target) => region.read(offset, target),
    };
  }
  // BYTES: the length prefixes must be checked before the request is queued, so the region's
  // serialized elements are read here (into request memory) and checked as raw data. The
  // request's own movable memory: a lone large request hands it to its worker (moved-inputs.ts),
  // so that read is the one copy, where a plain array was copied again into the batch block.
  const bytes = allocateRequestBytes(data.byteSize);
  region.read(data.offset, bytes);
  return bytes;
}

/** A fixed-size input's shared-memory byte size against its shape, in Triton core's words. */
function checkSharedMemorySize(model: string, name: string, got: number, expected: number): void {
  if (got !== expected) {
    throw fail(
      'BYTE_SIZE_MISMATCH',
      `input byte size mismatch for input '${name}' for model '${model}'. Expected ` +
        `${expected}, got ${got} (parameters.shared_memory_byte_size)`,
    );
  }
}

/** The requested output `o`, bound to the region its parameters name (plain when they name none). */
export function regionOutput(shm: RegionsOf, o: DecodedOutput, binary: boolean): ValidatedOutput {
  const where = sharedMemoryParameters(o.name, o.parameters);
  if (where === undefined) return { name: o.name, binary };
  const region = shm.get().acquire(where.region, where.offset, where.byteSize);
  return {
    name: o.name,
    binary,
    shm: { region, offset: where.offset, byteSize: where.byteSize },
  };
}
