// What the large-request bench records (bench/results/large-request.json): for each set-up (front
// end, body encoding, body size, ORT memory arena on or off) the server's RSS before one request,
// its peak while the request ran, and after a settle time.

import type { MachineInfo } from '../measure/machine-info.js';

export const LARGE_SCHEMA = 'infernode-bench-large-request/1';

export type Encoding = 'binary' | 'json';

export interface LargeRow {
  readonly frontEnd: string;
  readonly encoding: Encoding;
  /** The request body, bytes (for JSON, the text; the tensor holds as many bytes of FP32). */
  readonly bodyBytes: number;
  readonly arena: boolean;
  readonly status: number | null;
  /** From the send of the request to the last byte of its answer. */
  readonly requestMs: number;
  readonly beforeBytes: number;
  /** The largest of the 20 ms samples and the kernel's high-water mark (VmHWM). */
  readonly peakBytes: number;
  readonly afterBytes: number;
}

export interface LargeResult {
  readonly schema: typeof LARGE_SCHEMA;
  readonly command: string;
  readonly startedAt: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly settleMs: number;
  readonly rows: readonly LargeRow[];
}
