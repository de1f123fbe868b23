// Waiting on what the server shows (a gauge, a counter, a log line) instead of sleeping for a
// while and assuming what has happened by then: the wait ends as soon as the state is reached,
// however fast or slow the machine is.

import assert from 'node:assert/strict';

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

/**
 * Waits until `n` requests are all on the server and none has finished, for a model whose one
 * instance runs one request at a time: it runs the first and the pending gauge counts the other
 * n - 1 (it could only show n - 1 once all n arrived, and no earlier than one finished).
 */
export async function allQueued(metricsBase: string, model: string, n: number): Promise<void> {
  const queued = await waitFor(
    () => pendingRequests(metricsBase, model),
    (q) => q === n - 1,
  );
  assert.equal(queued, n - 1, `all ${n} requests on the server while the first still runs`);
}

/** Waits for a line of `lines` (a server's log) containing `text`. */
export async function logged(lines: readonly string[], text: string): Promise<void> {
  const seen = await waitFor(
    () => lines.some((l) => l.includes(text)),
    (x) => x,
  );
  assert.ok(seen, `log line "${text}":\n${lines.join('\n')}`);
}
