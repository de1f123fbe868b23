// The messages between the streams bench (parent) and its load process (child, over the fork
// IPC channel): one probe order in, one summary out. The child runs the paced streams against
// infernode over WebSocket, or runs the naive in-process loop itself, or times the model alone.

import type { LatencySummary } from './stream-pacer.js';

export type ProbeTarget =
  | { readonly kind: 'ws'; readonly host: string; readonly port: number; readonly model: string }
  | { readonly kind: 'naive' };

export interface ProbeOrder {
  readonly type: 'probe';
  readonly target: ProbeTarget;
  readonly streams: number;
  readonly connections: number;
  readonly periodMs: number;
  readonly warmupMs: number;
  readonly measureMs: number;
  readonly idBase: number;
}

/** Times session.run of the wrapped and the original model alone, per batch size. */
export interface ComputeOrder {
  readonly type: 'compute';
  readonly wrappedModel: string;
  readonly batchSizes: readonly number[];
  readonly runs: number;
}

export type LoadOrder = ProbeOrder | ComputeOrder;

export interface ProbeReport {
  readonly type: 'probe';
  readonly latency: LatencySummary;
  readonly stepsPerSecond: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** The load process's own CPU (user + system) over the whole probe, in cores. */
  readonly loadCpuCores: number;
}

export interface ComputeRow {
  readonly model: 'wrapped' | 'original';
  readonly batch: number;
  /** Mean session.run time per call. */
  readonly msPerRun: number;
  readonly usPerRow: number;
}

export interface ComputeReport {
  readonly type: 'compute';
  readonly rows: readonly ComputeRow[];
}

export type LoadReport = ProbeReport | ComputeReport | { readonly type: 'error'; message: string };
