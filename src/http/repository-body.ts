// The JSON bodies of Triton's repository endpoints (index, load, unload) -> the data plane's
// arguments. An empty body means the defaults; a body that is present must be a JSON object, and
// each member Triton reads is checked, naming what was expected and what arrived. Other members are
// ignored, as Triton ignores them.

import { Buffer } from 'node:buffer';
import type { ModelLoadRequest, ModelUnloadRequest } from '../dataplane/data-plane-api.js';
import { fail } from '../errors.js';
import { isJsonObject, jsonKind, own } from '../protocol/parameters.js';
import {
  readLoadParameters,
  showKey,
  UNLOAD_DEPENDENTS,
  wrongKind,
} from '../protocol/repository-parameters.js';
import { parseJsonBytes } from './json-text.js';

/** The body as a JSON object, or undefined when it is empty (Triton reads nothing then). */
function bodyObject(body: Uint8Array, what: string): Record<string, unknown> | undefined {
  if (body.byteLength === 0) return undefined;
  const doc = parseJsonBytes(body);
  if (!isJsonObject(doc)) {
    throw fail(
      'BAD_REQUEST',
      `expected the ${what} body to be a JSON object, got ${jsonKind(doc)}`,
    );
  }
  return doc;
}

/** `parameters`, absent meaning none. */
function parametersObject(
  doc: Record<string, unknown> | undefined,
  what: string,
): Record<string, unknown> {
  const params = doc === undefined ? undefined : own(doc, 'parameters');
  if (params === undefined) return {};
  if (!isJsonObject(params)) {
    throw fail('BAD_PARAMETER', `${what} 'parameters' must be an object, got ${jsonKind(params)}`);
  }
  return params;
}

/** `POST /v2/repository/index` `{"ready": bool}` -> readyOnly. */
export function decodeIndexBody(body: Uint8Array): boolean {
  const doc = bodyObject(body, 'repository index');
  const ready = doc === undefined ? undefined : own(doc, 'ready');
  if (ready === undefined) return false;
  if (typeof ready !== 'boolean') {
    throw fail(
      'BAD_REQUEST',
      `Invalid value for 'ready': expected a boolean, got ${jsonKind(ready)}`,
    );
  }
  return ready;
}

/** `POST .../load` `{"parameters": {"config": "<JSON>", "file:<v>/<name>": "<base64>"}}`. */
export function decodeLoadBody(body: Uint8Array): ModelLoadRequest {
  const params = parametersObject(bodyObject(body, 'load'), 'load');
  return readLoadParameters(
    Object.keys(params).map((k) => [k, params[k]] as const),
    {
      config: (v) => {
        if (typeof v !== 'string') throw wrongKind('load', 'config', 'a string', jsonKind(v));
        return v;
      },
      file: (v, key) => {
        if (typeof v !== 'string') throw wrongKind('load', key, 'a base64 string', jsonKind(v));
        return decodeBase64(v, key);
      },
    },
  );
}

/** `POST .../unload` `{"parameters": {"unload_dependents": bool}}`. */
export function decodeUnloadBody(body: Uint8Array): ModelUnloadRequest {
  const params = parametersObject(bodyObject(body, 'unload'), 'unload');
  const v = own(params, UNLOAD_DEPENDENTS);
  if (v === undefined) return { unloadDependents: false };
  if (typeof v !== 'boolean')
    throw wrongKind('unload', UNLOAD_DEPENDENTS, 'a boolean', jsonKind(v));
  return { unloadDependents: v };
}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * Base64 (RFC 4648 §4 alphabet, padding optional), strictly: Node's decoder skips characters
 * outside the alphabet, which would turn a damaged upload into a silently different model file.
 */
export function decodeBase64(text: string, key: string): Uint8Array {
  const bad = NOT_BASE64.exec(text);
  if (bad !== null) {
    throw fail(
      'BAD_PARAMETER',
      `load parameter ${showKey(key)} must be base64, got the character ` +
        `${JSON.stringify(bad[0])} at offset ${bad.index}`,
    );
  }
  // Padding: at most two '=', only at the end of a length that is a multiple of 4. Unpadded, the
  // length mod 4 may be 0, 2 or 3 (1 is never a whole number of bytes).
  const pad = text.indexOf('=');
  const dataChars = pad < 0 ? text.length : pad;
  const badPadding =
    pad >= 0 && (text.length - pad > 2 || text.length % 4 !== 0 || /[^=]/.test(text.slice(pad)));
  if (badPadding || dataChars % 4 === 1) {
    throw fail(
      'BAD_PARAMETER',
      `load parameter ${showKey(key)} must be base64, got ${text.length} characters ` +
        `that do not end as base64 does ('=' only as the last one or two of a multiple of 4)`,
    );
  }
  const bytes = Buffer.from(text, 'base64');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
