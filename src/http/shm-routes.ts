// Triton's shared-memory routes (extension_shared_memory.md): `/v2/systemsharedmemory/...` and
// `/v2/cudasharedmemory/...`, decoded into SharedMemoryCall data for the data plane. Register and
// unregister answer 200 with an empty body; status answers the JSON array of regions.

import type { DataPlanePort } from '../dataplane/data-plane-api.js';
import { fail } from '../errors.js';
import type { SharedMemoryCall } from '../shared-memory/shm-calls.js';
import type { HttpCall } from './front-end.js';

// http_server.cc's grammar: an optional `region/{name}` then the action.
const SHM_ROUTE =
  /^\/v2\/(systemsharedmemory|cudasharedmemory)(?:\/region\/([^/]+))?\/(status|register|unregister)$/;

export type ShmReply =
  { readonly kind: 'status'; readonly value: unknown } | { readonly kind: 'done' };

/** The route's call, or undefined when `path` is no shared-memory route. */
export function matchShmRoute(path: string): RegExpExecArray | null {
  return path.startsWith('/v2/') ? SHM_ROUTE.exec(path) : null;
}

export async function shmRoute(
  plane: DataPlanePort,
  call: HttpCall,
  match: RegExpExecArray,
  body: () => Promise<Uint8Array>,
): Promise<ShmReply> {
  const [, family, segment, action] = match as unknown as [string, string, string?, string?];
  const cuda = family === 'cudasharedmemory';
  const name = segment === undefined ? undefined : regionName(segment);
  let request: SharedMemoryCall;
  if (action === 'status') {
    requireMethod(call, 'GET');
    request = { op: cuda ? 'cuda-status' : 'status', ...(name !== undefined && { name }) };
  } else if (action === 'unregister') {
    requireMethod(call, 'POST');
    request = { op: cuda ? 'cuda-unregister' : 'unregister', ...(name !== undefined && { name }) };
  } else {
    requireMethod(call, 'POST');
    if (name === undefined) throw fail('NOT_FOUND', 'Not Found');
    request = cuda
      ? { op: 'cuda-register', name }
      : { op: 'register', name, ...registerBody(await body()) };
  }
  const value = await plane.sharedMemory(request);
  return action === 'status' ? { kind: 'status', value } : { kind: 'done' };
}

/** `{"key": string, "offset": uint, "byte_size": uint}`; offset defaults to 0. */
function registerBody(bytes: Uint8Array): { key: string; offset: number; byteSize: number } {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString());
  } catch {
    throw fail('BAD_JSON', 'failed to parse the request JSON buffer: the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw fail('BAD_REQUEST', 'shared memory register request must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  if (typeof b['key'] !== 'string') {
    throw fail('BAD_REQUEST', "shared memory register request needs 'key', a string");
  }
  return { key: b['key'], offset: uint(b, 'offset', 0), byteSize: uint(b, 'byte_size') };
}

function uint(b: Record<string, unknown>, member: string, fallback?: number): number {
  const v = b[member];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw fail(
      'BAD_REQUEST',
      `shared memory register request needs '${member}', an unsigned integer; got ` +
        JSON.stringify(v ?? null).slice(0, 40),
    );
  }
  return v;
}

function regionName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw fail('BAD_REQUEST', 'the region name in the path is not valid percent-encoding');
  }
}

function requireMethod(call: HttpCall, method: 'GET' | 'POST'): void {
  if (call.method !== method) {
    throw fail(
      'METHOD_NOT_ALLOWED',
      `Method Not Allowed: expected ${method}, got ${call.method.slice(0, 16)}`,
    );
  }
}
