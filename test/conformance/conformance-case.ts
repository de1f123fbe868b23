// The shapes shared by the conformance suite and its case lists: the adapter under test, what a
// case receives, and small helpers. Kept apart so case files and the runner do not import each other.

import { randomBytes } from 'node:crypto';
import type { ConnectionLimits, FrontEnd, FrontEndOptions } from '../../src/http/front-end.js';
import type { EchoState } from './echo-handler.js';

export interface FrontEndUnderTest {
  readonly name: string;
  /** Set when the adapter cannot run on this machine: the whole suite is skipped with this reason. */
  readonly unavailable?: string;
  create(options: FrontEndOptions): FrontEnd;
  /**
   * What a client sees when the library's own HTTP parser refuses a request before any route runs
   * (a Content-Length that is not a number or has ten or more digits): '400' (node:http's clientError hook answers) or 'close' (uWS drops the connection and
   * offers no hook to answer). Either way the handler must not run.
   */
  readonly parserRefusal: '400' | 'close';
  /**
   * A request with both `Transfer-Encoding: chunked` and `Content-Length`, which Triton reads by
   * its Transfer-Encoding: 'served' (read that way, answered, then the connection closes) or
   * 'close' (the library's parser drops the connection before any route runs, with no reply).
   */
  readonly bothFramingHeaders: 'served' | 'close';
  /**
   * What happens to requests pipelined behind one whose reply is still pending: 'in-order' (each
   * answered in turn) or 'close' (the library closes the connection rather than risk interleaved
   * replies; the pending call is aborted). Replies here are always asynchronous.
   */
  readonly asyncPipelining: 'in-order' | 'close';
  /**
   * Request bodies sent with `Transfer-Encoding: chunked`: 'served' (de-chunked strictly, every
   * malformed body refused with 400) or 'refused' (every chunked request gets 400, malformed or not,
   * where the library's own chunked parser cannot be made strict).
   */
  readonly chunkedBodies: 'served' | 'refused';
  /**
   * Set when the adapter's connection limits are fixed (uWS 20.30): cases that ask for limits get
   * these instead, and read them from `CaseContext.limits`.
   */
  readonly fixedLimits?: Required<ConnectionLimits>;
  /** Cases this adapter cannot pass, each with the written reason (shown as the skip message). */
  readonly skip?: Readonly<Partial<Record<string, string>>>;
}

export interface CaseContext {
  readonly impl: FrontEndUnderTest;
  readonly frontEnd: FrontEnd;
  readonly port: number;
  readonly echo: EchoState;
  readonly maxBodyBytes: number;
  /** The limits the adapter runs with in this case (the case's own, or the adapter's fixed ones). */
  readonly limits: ConnectionLimits;
  readonly url: (pathAndQuery: string) => string;
  /** Starts another adapter of the same kind (closed with the case). */
  readonly startAnother: (port: number) => Promise<{ frontEnd: FrontEnd; port: number }>;
}

export interface ConformanceCase {
  readonly id: string;
  readonly title: string;
  /** The body limit for this case's adapter; default 64 MiB (Triton's --http-max-input-size). */
  readonly maxBodyBytes?: number;
  /** Connection limits for this case's adapter (where the adapter's are fixed, it gets those). */
  readonly limits?: ConnectionLimits;
  run(ctx: CaseContext): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Random bytes of the given size (random so that a misplaced chunk changes the checksum). */
export function payload(size: number): Uint8Array {
  return new Uint8Array(randomBytes(size));
}
