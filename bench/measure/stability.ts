// perf_analyzer's stability rule (inference_profiler.cc DetermineStability): a load level is stable
// when, over the last 3 windows, no window completed zero requests, and both max/min of throughput
// and max/min of latency are within 1 + stability_percentage/100. The latency is the average, or
// the --percentile value when one is given.
//
// One deliberate difference: perf_analyzer divides its integer nanosecond latencies with integer
// division (max/min of uint64), which truncates 1.9 to 1 and so almost never rejects on latency.
// The rule here divides real numbers, as its documentation describes.

export const STABILITY_WINDOW = 3;

export interface WindowFigures {
  /** Completed inferences per second in the window. */
  readonly throughput: number;
  /** Average latency, or the chosen percentile, in µs. */
  readonly latencyUs: number;
}

export interface StabilityVerdict {
  readonly stable: boolean;
  /** Why not (or 'stable'), for the progress line and the result file. */
  readonly reason: string;
}

export function checkStability(
  windows: readonly WindowFigures[],
  stabilityPercentage: number,
): StabilityVerdict {
  if (windows.length < STABILITY_WINDOW) {
    return {
      stable: false,
      reason: `${windows.length} of ${STABILITY_WINDOW} windows measured`,
    };
  }
  const last = windows.slice(-STABILITY_WINDOW);
  if (last.some((w) => w.throughput === 0)) {
    return { stable: false, reason: 'a window completed no requests' };
  }
  const limit = 1 + stabilityPercentage / 100;
  const spread = (values: number[]): number => {
    const min = Math.min(...values);
    return min === 0 ? Infinity : Math.max(...values) / min;
  };
  const throughputSpread = spread(last.map((w) => w.throughput));
  if (throughputSpread > limit) {
    return {
      stable: false,
      reason: `throughput max/min ${throughputSpread.toFixed(3)} > ${limit.toFixed(3)}`,
    };
  }
  const latencySpread = spread(last.map((w) => w.latencyUs));
  if (latencySpread > limit) {
    return {
      stable: false,
      reason: `latency max/min ${latencySpread.toFixed(3)} > ${limit.toFixed(3)}`,
    };
  }
  return { stable: true, reason: 'stable' };
}
