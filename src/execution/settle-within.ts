// A time limit on a call into a worker (a JavaScript backend's `limits.runMs`, run-channel.ts):
// the call's own outcome, or once the limit passes first, what the caller says instead. The caller
// decides what expiry means (model-instance.ts terminates a run's worker; a finalize() past its
// limit is only logged).

/**
 * `task`'s outcome, or after `ms` (if it has not settled) `expired()`'s value. A rejection of `task`
 * after that is dropped: the caller has moved on, and it would otherwise go unhandled.
 */
export function settleWithin<T>(task: Promise<T>, ms: number, expired: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      task.catch(() => {});
      resolve(expired());
    }, ms);
  });
  return Promise.race([task, late]).finally(() => clearTimeout(timer));
}
