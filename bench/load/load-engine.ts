// The interface every load thread runs: the HTTP generator's engines and the raw ONNX Runtime
// comparator implement it, so one driver (threads, windows, stop) serves both.

import type { LoadShare } from './messages.js';
import type { WindowRecorder } from './window-recorder.js';

export interface LoadEngine {
  /** Starts this thread's share of a level; resolves once load is flowing (connections open). */
  start(share: LoadShare, recorder: WindowRecorder): Promise<void>;
  /** Stops issuing requests; resolves when none is in flight any more. */
  stop(): Promise<void>;
  /** Requests on the wire now. */
  inFlight(): number;
  /** Requests due but waiting client-side (open loop only). */
  queued(): number;
  /** Releases sessions or sockets; the thread exits after this. */
  close(): Promise<void>;
}

/** Outcome text for a failed request, kept short for the result file. */
export function describeFailure(status: number | null, detail: string): string {
  const text = detail.replace(/\s+/g, ' ').trim().slice(0, 300);
  return status === null ? text : `HTTP ${status}${text === '' ? '' : `: ${text}`}`;
}
