// What the load loops need of a connection that carries many requests at once (a WebSocket, a gRPC
// channel, a ModelStreamInfer stream): send, count, time out, close, and report each request's
// outcome and the connection's end through the callbacks it was opened with.

export interface RequestOutcome {
  /** null when answered with a result; else why the request failed. */
  readonly error: string | null;
  /** performance.now() the latency counts from (the send, or the intended send time). */
  readonly startAt: number;
  readonly doneAt: number;
  /** The write of the request, µs. */
  readonly sendUs: number;
  /** First byte of the response to its last, µs (0 where the transport does not expose it). */
  readonly recvUs: number;
}

export interface MultiplexedConnection<P> {
  /** False once the connection failed or was closed: send nothing more on it. */
  readonly usable: boolean;
  /** Requests sent and not yet answered, timed out or failed. */
  readonly inFlight: number;
  /** Sends one request; its latency will count from `startAt` (performance.now() units). */
  send(payload: P, startAt: number): void;
  /** Fails the requests older than `timeoutMs` (oldest first). */
  expire(now: number, timeoutMs: number): void;
  close(): void;
}

/**
 * Opens one connection; resolves once it can carry requests, so connection set-up never lands in
 * a latency. Every request then ends in exactly one `onOutcome`; `onClosed` follows the last one
 * when the connection ends (failed, or closed by the generator).
 */
export type OpenConnection<P, C extends MultiplexedConnection<P>> = (
  onOutcome: (conn: C, outcome: RequestOutcome) => void,
  onClosed: (conn: C) => void,
) => Promise<C>;
