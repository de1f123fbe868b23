// How many front-end threads to run (--http-thread-count), and when the server must run one
// instead of what was asked, with the sentence that says why for the start-up log.

import { reusePortUnsupported } from '../http/select-front-end.js';

/** Triton's --http-thread-count default, which this never exceeds by default. */
const DEFAULT_MAX_THREADS = 8;

/**
 * The default: half the cores, at least 1 and at most 8. The other half is left to the model
 * instances (ONNX Runtime's own threads and the JavaScript workers), which is where a GPU-less
 * host spends its CPU; on a 2-core host it is 1, exactly the single-threaded server, since a
 * second thread there only adds a hop per request.
 */
export function defaultHttpThreadCount(cores: number): number {
  return Math.max(1, Math.min(DEFAULT_MAX_THREADS, Math.floor(cores / 2)));
}

export interface ThreadRequirements {
  /** The adapter chosen ('uws' or 'node-http'). */
  readonly frontEndKind: string;
  /** --trace-stages: the stage timeline is recorded on the main thread only. */
  readonly traceStages: boolean;
  /** --http-max-connections: a cap each thread would count alone. */
  readonly maxConnections: number;
}

/** Why front-end threads cannot serve with these options (undefined: they can). */
export function threadsUnavailableReason(r: ThreadRequirements): string | undefined {
  const reuse = reusePortUnsupported(r.frontEndKind);
  if (reuse !== undefined) return reuse;
  if (r.traceStages) return '--trace-stages times requests on the main thread only';
  if (r.maxConnections > 0) {
    return '--http-max-connections is counted per listener, so threads would multiply the cap';
  }
  return undefined;
}
