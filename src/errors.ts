// The error catalog: every failure infernode reports has a stable code here, one HTTP status, and
// a Triton error class. Errors cross worker and transport boundaries as plain `{code, message}`
// data (structured clone drops an Error's class), and are rebuilt with `fromWire`.

/** Triton's error classes (TRITONSERVER_Error_Code), which decide the HTTP status. */
export type ErrorClass =
  'INVALID_ARG' | 'NOT_FOUND' | 'UNAVAILABLE' | 'UNSUPPORTED' | 'INTERNAL' | 'CANCELLED';

interface CatalogEntry {
  readonly errorClass: ErrorClass;
  readonly status: number;
  readonly summary: string;
}

// Status per class follows Triton's HttpCodeFromError: INTERNAL 500, NOT_FOUND 404,
// UNAVAILABLE 503, UNSUPPORTED 501, everything else 400.
const entry = (errorClass: ErrorClass, summary: string, status?: number): CatalogEntry =>
  Object.freeze({
    errorClass,
    summary,
    status:
      status ??
      (errorClass === 'INTERNAL'
        ? 500
        : errorClass === 'NOT_FOUND'
          ? 404
          : errorClass === 'UNAVAILABLE'
            ? 503
            : errorClass === 'UNSUPPORTED'
              ? 501
              : 400),
  });

export const ERROR_CATALOG = Object.freeze({
  // Request decoding and validation
  BAD_REQUEST: entry('INVALID_ARG', 'the request is malformed'),
  BAD_JSON: entry('INVALID_ARG', 'the request body is not valid JSON'),
  JSON_TOO_DEEP: entry('INVALID_ARG', 'JSON nesting depth exceeds the limit'),
  BODY_TOO_LARGE: entry('INVALID_ARG', 'the request body exceeds --http-max-input-size'),
  BAD_HEADER_LENGTH: entry('INVALID_ARG', 'Inference-Header-Content-Length is out of range'),
  UNKNOWN_INPUT: entry('INVALID_ARG', 'an input name the model does not have'),
  MISSING_INPUT: entry('INVALID_ARG', 'a required model input is missing'),
  DUPLICATE_TENSOR: entry('INVALID_ARG', 'a tensor name appears twice'),
  UNKNOWN_OUTPUT: entry('INVALID_ARG', 'a requested output the model does not have'),
  TOO_MANY_TENSORS: entry('INVALID_ARG', 'more inputs or outputs than the model has'),
  BAD_DATATYPE: entry('INVALID_ARG', 'the datatype differs from the model config'),
  BAD_SHAPE: entry('INVALID_ARG', 'the shape does not match the model config'),
  BAD_BATCH_SIZE: entry('INVALID_ARG', 'the batch size exceeds max_batch_size'),
  BYTE_SIZE_MISMATCH: entry('INVALID_ARG', "the tensor's byte size does not match its shape"),
  BAD_TENSOR_DATA: entry('INVALID_ARG', 'tensor data does not match its datatype'),
  BAD_PARAMETER: entry('INVALID_ARG', 'a request parameter is invalid'),
  BAD_MODEL_NAME: entry('INVALID_ARG', 'the model name is not allowed'),
  BAD_VERSION: entry('INVALID_ARG', 'the model version is not a number'),
  // WebSocket request ids (docs/websocket-protocol.md): neither ends a request in flight
  BAD_ID: entry('INVALID_ARG', "the frame's request id is absent or unusable"),
  DUPLICATE_ID: entry('INVALID_ARG', 'a request with this id is already in flight on the socket'),
  // Routing and availability
  NOT_FOUND: entry('NOT_FOUND', 'no such endpoint'),
  METHOD_NOT_ALLOWED: entry('INVALID_ARG', 'the method is not allowed on this endpoint', 405),
  MODEL_NOT_FOUND: entry('NOT_FOUND', 'no such model or version'),
  MODEL_NOT_READY: entry('UNAVAILABLE', 'the model version is not ready'),
  SHUTTING_DOWN: entry('UNAVAILABLE', 'the server is shutting down'),
  QUEUE_FULL: entry('UNAVAILABLE', 'Exceeds maximum queue size'),
  QUEUE_TIMEOUT: entry('UNAVAILABLE', 'Request timeout expired'),
  CLIENT_MEMORY_FULL: entry(
    'UNAVAILABLE',
    'the memory held for clients (--client-memory-budget) is full: retry later',
  ),
  CANCELLED: entry('CANCELLED', 'the request was cancelled'),
  // Per-tenant quotas (--quota-file, docs/operations.md "Tenant quotas"): 429 with Retry-After,
  // gRPC RESOURCE_EXHAUSTED; nothing already accepted is refused by them.
  TENANT_RATE_LIMITED: entry(
    'UNAVAILABLE',
    'the tenant is over its requests-per-second quota',
    429,
  ),
  TENANT_IN_FLIGHT: entry(
    'UNAVAILABLE',
    'the tenant has as many requests in flight as its quota allows',
    429,
  ),
  TENANT_QUEUE_SHARE: entry(
    'UNAVAILABLE',
    "the tenant holds its whole share of the model's queue",
    429,
  ),
  TENANT_UNKNOWN: entry(
    'UNAVAILABLE',
    'the tenant is not in the quota file, which refuses unknown tenants',
    403,
  ),
  SEQUENCE_ID_REQUIRED: entry('INVALID_ARG', 'a sequence model needs a correlation id'),
  SEQUENCE_NOT_STARTED: entry('INVALID_ARG', 'the sequence was not started, or has ended'),
  SEQUENCE_LIMIT: entry('UNAVAILABLE', 'the model has as many live sequences as it allows'),
  // Model loading
  CONFIG_SYNTAX: entry('INVALID_ARG', 'config.pbtxt has a syntax error'),
  CONFIG_INVALID: entry('INVALID_ARG', 'the model config is invalid'),
  MODEL_LOAD_FAILED: entry('INTERNAL', 'the model failed to load'),
  PROVIDER_UNAVAILABLE: entry('UNAVAILABLE', 'the execution provider is not installed'),
  UNSUPPORTED: entry('UNSUPPORTED', 'not supported by infernode'),
  // Model management (the repository API)
  MODEL_CONTROL_DISABLED: entry(
    'UNAVAILABLE',
    'load and unload need --model-control-mode=explicit',
  ),
  BAD_MODEL_FILE: entry('INVALID_ARG', 'a load file override names a path outside the model'),
  RESTRICTED_API: entry('UNAVAILABLE', 'the API needs a header the request did not carry', 403),
  // Shared memory (Triton's shared-memory extension, docs/http-protocol.md)
  SHM_DISABLED: entry(
    'UNAVAILABLE',
    'client shared memory is off: start the server with --allow-client-shm=true',
    403,
  ),
  SHM_BAD_KEY: entry('INVALID_ARG', 'a shared-memory key is not a name in /dev/shm'),
  SHM_NOT_OPENED: entry('INVALID_ARG', "the shared-memory key's file could not be opened"),
  SHM_ALREADY_REGISTERED: entry('INVALID_ARG', 'a region of that name is already registered'),
  SHM_NOT_FOUND: entry('NOT_FOUND', 'no shared-memory region of that name is registered'),
  SHM_BAD_SLICE: entry('INVALID_ARG', 'offset and byte size fall outside the region'),
  SHM_TRUNCATED: entry('INVALID_ARG', 'the region file is smaller than its registration'),
  SHM_LIMIT: entry(
    'INVALID_ARG',
    'the registrations would exceed --client-shm-max-regions or --client-shm-max-bytes',
  ),
  SHM_CUDA_UNSUPPORTED: entry('INVALID_ARG', 'CUDA shared memory needs a GPU build'),
  // Execution
  INFER_FAILED: entry('INTERNAL', 'ONNX Runtime failed to run the model'),
  WORKER_FAILED: entry('INTERNAL', 'the model instance worker failed'),
  // A JavaScript model's own failures (docs/pipelines.md, "Errors"): an Error response, a response
  // that fails its checks, or execute() throwing; and execute() past execute_timeout_ms.
  MODEL_EXECUTE_FAILED: entry(
    'INTERNAL',
    "a JavaScript model's execute() failed or answered badly",
  ),
  MODEL_EXECUTE_TIMEOUT: entry(
    'UNAVAILABLE',
    "a JavaScript model's execute() outlived its timeout",
  ),
  // BLS and decoupled models (docs/pipelines.md)
  BLS_TIMEOUT: entry('UNAVAILABLE', 'a BLS call was not answered within its timeout'),
  DECOUPLED_UNSUPPORTED: entry(
    'UNSUPPORTED',
    "the endpoint doesn't support models with decoupled transaction policy",
    400,
  ),
  INTERNAL: entry('INTERNAL', 'internal error'),
} as const satisfies Record<string, CatalogEntry>);

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The plain-data form of an error: what crosses threads and goes into WebSocket error frames. */
export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  /** Seconds after which a retry may succeed (a tenant's quota): HTTP Retry-After. */
  readonly retryAfterS?: number;
  /** The same delay in milliseconds: WebSocket `retry_after_ms`, gRPC `retry-after-ms`. */
  readonly retryAfterMs?: number;
}

export class InferenceServerError extends Error {
  readonly code: ErrorCode;
  /** Seconds after which a retry may succeed (over a tenant's quota); absent for other errors. */
  readonly retryAfterS?: number;
  /** The same delay in milliseconds (set with retryAfterS; defaults to retryAfterS × 1000). */
  readonly retryAfterMs?: number;
  constructor(code: ErrorCode, message?: string, retryAfterS?: number, retryAfterMs?: number) {
    super(message ?? ERROR_CATALOG[code].summary);
    this.name = 'InferenceServerError';
    this.code = code;
    if (retryAfterS !== undefined) {
      this.retryAfterS = retryAfterS;
      this.retryAfterMs = retryAfterMs ?? retryAfterS * 1000;
    }
  }
  get status(): number {
    return ERROR_CATALOG[this.code].status;
  }
  get errorClass(): ErrorClass {
    return ERROR_CATALOG[this.code].errorClass;
  }
  toWire(): WireError {
    return this.retryAfterS === undefined
      ? { code: this.code, message: this.message }
      : {
          code: this.code,
          message: this.message,
          retryAfterS: this.retryAfterS,
          retryAfterMs: this.retryAfterMs,
        };
  }
}

/** Shorthand used at throw sites: `throw fail('BAD_SHAPE', '...')`. */
export function fail(code: ErrorCode, message?: string): InferenceServerError {
  return new InferenceServerError(code, message);
}

export function isErrorCode(s: unknown): s is ErrorCode {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, s);
}

export function fromWire(w: {
  code: unknown;
  message: unknown;
  retryAfterS?: unknown;
  retryAfterMs?: unknown;
}): InferenceServerError {
  const code = isErrorCode(w.code) ? w.code : 'INTERNAL';
  return new InferenceServerError(
    code,
    typeof w.message === 'string' ? w.message : undefined,
    typeof w.retryAfterS === 'number' ? w.retryAfterS : undefined,
    typeof w.retryAfterMs === 'number' ? w.retryAfterMs : undefined,
  );
}

/**
 * Any thrown value -> a catalogued error. Unknown exceptions become INTERNAL with a generic message,
 * so stack traces, paths and internal ids never reach a client.
 */
export function toServerError(e: unknown): InferenceServerError {
  if (e instanceof InferenceServerError) return e;
  return new InferenceServerError('INTERNAL');
}
