// What the shared-memory comparison records (bench/results/shared-memory.json): for each model and
// tensor size, each way of carrying the tensor (HTTP binary, gRPC, system shared memory), the
// latency of N requests at one in flight and the server's peak RSS above its idle RSS.

import type { MachineInfo } from '../measure/machine-info.js';

export const SHM_SCHEMA = 'infernode-bench-shared-memory/1';

/** How the tensor reached the model; `ort-alone` is ONNX Runtime in a process of its own, no server. */
export type Carrier = 'http-binary' | 'grpc' | 'shared-memory' | 'ort-alone';

export interface ShmRow {
  readonly model: string;
  /** The input tensor, bytes (the output is as large for the identity model). */
  readonly tensorBytes: number;
  readonly carrier: Carrier;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** VmRSS of the fresh server, loaded and idle, before the first request. */
  readonly idleBytes: number;
  /** The largest 20 ms VmRSS sample (and VmHWM) while the requests ran. */
  readonly peakBytes: number;
}

export interface ShmResult {
  readonly schema: typeof SHM_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly rows: readonly ShmRow[];
}
