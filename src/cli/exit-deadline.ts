// The hard bound on a stop: --exit-timeout-secs holds at every phase, start-up loads included.
// Armed by the first signal; if the process is still there when it passes, it ends the process by
// that signal's default action.
//
// Why a signal and not process.exit: process.exit (and worker.terminate) joins every worker thread,
// and a thread inside a synchronous ONNX Runtime call (InferenceSession.create, session.run) only
// returns when the call does. Measured with onnxruntime-node 1.30 on Node 20, a worker 2 s into a
// 21 s session creation: process.exit(1) returned 19 s later and then aborted the process (SIGABRT,
// "terminate called after throwing an instance of 'Napi::Error'", status 134); worker.terminate()
// the same. Re-raising SIGTERM with its default action ended the process within 0.2 s, status 143
// (128 + 15): what the process would have done without a handler, and what systemd counts as a
// clean stop. Nothing is flushed or answered at that point, so it is a last resort.

import type { Logger } from '../logger.js';

/** setTimeout fires at once past this (node clamps it to 1 ms): a longer bound is none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long after the signal the process may still be there if it survives its own signal. */
const KILL_FALLBACK_MS = 1000;

export interface ExitDeadline {
  /** The process is exiting on its own: the bound is no longer needed. */
  cancel(): void;
}

/**
 * Ends the process by `signal` `ms` from now, logging `phase` (what was still running) first.
 * `end` is for tests; by default the signal's listeners are removed (so its default action is
 * back) and the signal is sent to this process.
 */
export function armExitDeadline(
  signal: NodeJS.Signals,
  ms: number,
  logger: Logger,
  phase: () => string,
  end: (signal: NodeJS.Signals) => void = endBySignal,
): ExitDeadline {
  if (ms > MAX_TIMER_MS) return { cancel: () => undefined };
  const timer = setTimeout(() => {
    logger.error(
      { signal, afterMs: ms },
      `--exit-timeout-secs ran out ${phase()}: ending the process by ${signal} (a thread inside ` +
        'ONNX Runtime cannot be stopped, and exiting would wait for it)',
    );
    end(signal);
  }, ms);
  // The process exits on its own once the stop completes; this timer must not hold it.
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}

function endBySignal(signal: NodeJS.Signals): void {
  // With no listener left, node restores the signal's default disposition: termination.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), KILL_FALLBACK_MS).unref();
}
