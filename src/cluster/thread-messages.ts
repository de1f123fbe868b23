// The messages between the main thread and a front-end thread, one union each way. A front-end
// thread (front-end-thread.ts) owns sockets and does a request's per-request work — framing,
// decompression, decoding, encoding, sending; the main thread owns the models, the queues and the
// batches, and answers the thread's data-plane calls (plane-host.ts).
//
// Lifecycle: main starts a thread with a `FrontEndThreadConfig` as workerData; the thread listens
// on the port main already holds (SO_REUSEPORT, so the kernel spreads new connections over every
// listener) and says `listening`. From then on the thread sends `call`, `infer` and `cancel`, main
// answers each `call`/`infer` exactly once with `reply` (after zero or more `partial`s for a
// decoupled model). Main steers the thread with `control`, which the thread answers with `done`.
//
// Ownership: tensor bytes cross as views of one ArrayBuffer per message, transferred (the sender
// gives it up), or as views of SharedArrayBuffers the sender will never write again (a finished
// run's outputs). Errors cross as `WireError`, since structured clone drops an Error's class.

import type { WireError } from '../errors.js';
import type { ConnectionLimits } from '../http/front-end.js';
import type { ApiRestriction } from '../http/restricted-apis.js';
import type { LogSettings } from '../logging/log-settings.js';
import type {
  DecodedRequest,
  InferenceResponse,
  RawBinaryRequest,
} from '../protocol/inference-request.js';
import type { WebSocketLimits } from '../websocket/ws-protocol.js';
import type { ThreadReading } from '../metrics/thread-sampler.js';

/** What a front-end thread is started with (its workerData): plain data, cloned once. */
export interface FrontEndThreadConfig {
  /** Which thread this is (1..N-1; the main thread is 0), for logs. */
  readonly index: number;
  /** The adapter the main thread chose: the threads use the same one. */
  readonly frontEnd: 'uws' | 'node';
  readonly host: string;
  /** The port the main thread is already listening on. */
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly limits: ConnectionLimits;
  readonly restrictedApis: readonly ApiRestriction[];
  /** --tenant-header, lower-case: read per request and passed with it to the main thread. */
  readonly tenantHeader?: string;
  /** --client-memory-budget, counted in the main thread's shared counter (client-budget.ts). */
  readonly clientBudget: { readonly limitBytes: number; readonly counter: SharedArrayBuffer };
  /** --metrics-interval-ms: the thread posts its `readings` this often; absent: none (no metrics). */
  readonly readingsIntervalMs?: number;
  /** Absent with --allow-websocket=false; `counters` is the main route's WsCounters memory. */
  readonly websocket?: { readonly limits: WebSocketLimits; readonly counters: SharedArrayBuffer };
  /** The log settings in force when the thread starts; each change follows as `logSettings`. */
  readonly logSettings: LogSettings;
}

/**
 * The data-plane calls other than `infer` that a thread forwards as they are, and `logSettings`
 * (the logging extension: the settings live with the main thread's LogControl).
 */
export const PLANE_CALLS = Object.freeze([
  'ready',
  'serverMetadata',
  'modelReady',
  'modelMetadata',
  'modelConfig',
  'modelStats',
  'repositoryIndex',
  'loadModel',
  'unloadModel',
  'sharedMemory',
  'traceSetting',
  'logSettings',
] as const);
export type PlaneCall = (typeof PLANE_CALLS)[number];

/** What main asks a thread to do (each mirrors a FrontEnd / StreamingRoute method). */
export type ControlOp =
  /** Throws an exception nothing catches in the thread, as a bug would (tests the replacement). */
  'fail' | 'beginDrain' | 'whenIdle' | 'stopAccepting' | 'websocketShutdown' | 'close';

export type ToMain =
  | { readonly kind: 'listening'; readonly port: number }
  | {
      readonly kind: 'call';
      readonly id: number;
      readonly method: PlaneCall;
      readonly args: unknown[];
    }
  | {
      readonly kind: 'infer';
      readonly id: number;
      readonly model: string;
      readonly version: string | undefined;
      readonly request: DecodedRequest | RawBinaryRequest;
      /** process.hrtime.bigint() at arrival, as a number: the clock is the process's. */
      readonly arrivalNs: number;
      /** The transport takes a decoupled model's responses one by one (`partial`). */
      readonly streams: boolean;
      /** The client's W3C traceparent, unparsed: the main thread samples and starts the span. */
      readonly traceparent?: string;
      /** --tenant-header's value: the main thread admits the request against the tenant quotas. */
      readonly tenant?: string;
    }
  /** The client went away; `reason` is the transport's CANCELLED error. */
  | { readonly kind: 'cancel'; readonly id: number; readonly reason?: WireError }
  | {
      readonly kind: 'log';
      readonly level: 'info' | 'warn' | 'error';
      readonly fields: Readonly<Record<string, unknown>>;
      readonly message: string;
    }
  | { readonly kind: 'done'; readonly seq: number }
  /** The thread's own figures over the last metrics interval (infernode_thread_*). */
  | { readonly kind: 'readings'; readonly reading: ThreadReading };

export type ToThread =
  | { readonly kind: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: false; readonly error: WireError }
  | {
      readonly kind: 'partial';
      readonly id: number;
      readonly response: InferenceResponse | { readonly error: WireError };
    }
  | { readonly kind: 'control'; readonly seq: number; readonly op: ControlOp }
  /** The log settings changed (POST /v2/logging, gRPC LogSettings): the thread's copy follows. */
  | { readonly kind: 'logSettings'; readonly settings: LogSettings };
