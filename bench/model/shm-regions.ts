// perf_analyzer's --shared-memory system for the load generator: the inputs of every input set are
// written once into a /dev/shm region, the outputs get a region of --output-shared-memory-size
// bytes each, all registered before the run over the transport under test (HTTP or gRPC) and
// unregistered and removed after it. Requests then carry only the regions' names, offsets and
// sizes; every request in flight shares the output region, as perf_analyzer's do.

import { InferenceClient, SystemSharedMemoryRegion, type SharedMemoryRef } from 'infernode/client';
import type { RequestBody } from '../load/http-request.js';
import type { InputSet } from './input-data.js';
import { tensorBytes } from './request-body.js';

export interface BenchRegions {
  /** Per input set, each input's place. */
  readonly inputs: readonly Readonly<Record<string, SharedMemoryRef>>[];
  /** Each output's place. */
  readonly outputs: Readonly<Record<string, SharedMemoryRef>>;
  /** Unregisters every region and removes the files. */
  release(): Promise<void>;
}

/** `url`: http://host:port, or host:port of the gRPC front end with `grpc`. */
export async function setUpRegions(
  url: string,
  grpc: boolean,
  sets: readonly InputSet[],
  outputs: readonly string[],
  outputBytes: number,
): Promise<BenchRegions> {
  const client = new InferenceClient({ url, protocol: grpc ? 'grpc' : 'http-json' });
  const made: SystemSharedMemoryRegion[] = [];
  const names: string[] = [];
  const tag = `infernode-bench-${process.pid}`;
  const register = async (name: string, region: SystemSharedMemoryRegion) => {
    made.push(region);
    await client.registerSystemSharedMemory(name, region.key, region.byteSize);
    names.push(name);
  };
  const release = async () => {
    for (const name of names.splice(0)) {
      await client.unregisterSystemSharedMemory(name).catch(() => undefined);
    }
    for (const region of made.splice(0)) region.destroy();
    await client.close();
  };
  try {
    const inputs = [];
    for (const [i, set] of sets.entries()) {
      const payloads = set.map(tensorBytes);
      const size = payloads.reduce((n, p) => n + p.byteLength, 0);
      const region = SystemSharedMemoryRegion.create(`/${tag}-in${i}`, Math.max(size, 1));
      const refs: Record<string, SharedMemoryRef> = {};
      let at = 0;
      for (const [k, t] of set.entries()) {
        const bytes = payloads[k] as Uint8Array;
        region.write(bytes, at);
        refs[t.name] = { region: `bench_in${i}`, byteSize: bytes.byteLength, offset: at };
        at += bytes.byteLength;
      }
      await register(`bench_in${i}`, region);
      inputs.push(refs);
    }
    const out = SystemSharedMemoryRegion.create(`/${tag}-out`, outputBytes * outputs.length);
    await register('bench_out', out);
    const outputRefs: Record<string, SharedMemoryRef> = {};
    for (const [k, name] of outputs.entries()) {
      outputRefs[name] = { region: 'bench_out', byteSize: outputBytes, offset: k * outputBytes };
    }
    return { inputs, outputs: outputRefs, release };
  } catch (e) {
    await release();
    throw e;
  }
}

/** A tensor's `shared_memory_*` parameters. */
export function shmParameters(ref: SharedMemoryRef): Record<string, string | number> {
  return {
    shared_memory_region: ref.region,
    shared_memory_byte_size: ref.byteSize,
    shared_memory_offset: ref.offset ?? 0,
  };
}

/**
 * The HTTP JSON body of a request whose tensors are all in regions: inputs and outputs carry
 * their `shared_memory_*` parameters and no data.
 */
export function sharedMemoryRequestBody(
  set: InputSet,
  inputs: Readonly<Record<string, SharedMemoryRef>>,
  outputs: Readonly<Record<string, SharedMemoryRef>>,
): RequestBody {
  const body = {
    inputs: set.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      parameters: shmParameters(placeOf(inputs, t.name)),
    })),
    outputs: Object.entries(outputs).map(([name, ref]) => ({
      name,
      parameters: shmParameters(ref),
    })),
  };
  return { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
}

/** The same tensors as ModelInferRequest members: parameters as InferParameter messages. */
export function grpcSharedMemoryMembers(
  set: InputSet,
  inputs: Readonly<Record<string, SharedMemoryRef>>,
  outputs: Readonly<Record<string, SharedMemoryRef>>,
): { inputs: object[]; outputs: object[] } {
  return {
    inputs: set.map((t) => ({
      name: t.name,
      datatype: t.datatype,
      shape: t.shape,
      parameters: grpcParameters(shmParameters(placeOf(inputs, t.name))),
    })),
    outputs: Object.entries(outputs).map(([name, ref]) => ({
      name,
      parameters: grpcParameters(shmParameters(ref)),
    })),
  };
}

function grpcParameters(p: Record<string, string | number>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(p).map(([k, v]) => [
      k,
      typeof v === 'string' ? { string_param: v } : { int64_param: v },
    ]),
  );
}

function placeOf(refs: Readonly<Record<string, SharedMemoryRef>>, name: string): SharedMemoryRef {
  const ref = refs[name];
  if (ref === undefined) throw new Error(`input ${name} has no shared-memory region`);
  return ref;
}
