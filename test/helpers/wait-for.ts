// Waiting on what the server shows (a gauge, a counter, a log line) instead of sleeping for a
// while and assuming what has happened by then: the wait ends as soon as the state is reached,
// however fast or slow the machine is.

/**
 * Reads `read()` until `done(value)` holds or `timeoutMs` passes, and returns the last value read:
 * the caller asserts on it, so a state never reached fails with the value that was there instead.
 */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let value = await read();
  while (!done(value) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
    value = await read();
  }
  return value;
}

/** The sample of metric `name` whose labels include every one of `labels` (e.g. 'model="m"'). */
export async function metric(
  metricsBase: string,
  name: string,
  ...labels: string[]
): Promise<number> {
  const text = await (await fetch(`${metricsBase}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** Requests of `model` queued, not yet executing: Triton's nv_inference_pending_request_count. */
export function pendingRequests(metricsBase: string, model: string): Promise<number> {
  return metric(metricsBase, 'nv_inference_pending_request_count', `model="${model}"`);
}
