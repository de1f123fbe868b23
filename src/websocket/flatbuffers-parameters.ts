// `parameters` maps in FlatBuffers frames: a vector of Parameter tables (key, kind, one value
// field), written from and read into the same plain-object form the msgpack frames use.

import type { Builder } from 'flatbuffers';
import { type Offset } from 'flatbuffers';
import { fail } from '../errors.js';
import type { ParameterValue } from '../protocol/inference-request.js';
import { Parameter, ParameterKind } from '../../schemas/generated/infernode-ws_generated.js';

/** Writes each entry as a Parameter table; returns their offsets (0 entries: an empty list). */
export function writeParameterTables(
  b: Builder,
  params: Readonly<Record<string, ParameterValue>> | undefined,
): Offset[] {
  if (params === undefined) return [];
  return Object.keys(params).map((key) => {
    const value = params[key] as ParameterValue;
    const keyOffset = b.createString(key);
    if (typeof value === 'string') {
      const s = b.createString(value);
      return Parameter.createParameter(b, keyOffset, ParameterKind.String, s, 0n, 0, false);
    }
    if (typeof value === 'boolean') {
      return Parameter.createParameter(b, keyOffset, ParameterKind.Bool, 0, 0n, 0, value);
    }
    return Number.isSafeInteger(value)
      ? Parameter.createParameter(b, keyOffset, ParameterKind.Int, 0, BigInt(value), 0, false)
      : Parameter.createParameter(b, keyOffset, ParameterKind.Double, 0, 0n, value, false);
  });
}

/**
 * Reads `count` Parameter tables through `at` into a null-prototype object (a `__proto__` key is
 * an ordinary key there). The caller runs the result through readParameters for its key rules.
 */
export function readParameterTables(
  count: number,
  at: (i: number) => Parameter | null,
  where: string,
): Record<string, ParameterValue> {
  const out = Object.create(null) as Record<string, ParameterValue>;
  for (let i = 0; i < count; i++) {
    const p = at(i);
    const key = p?.key();
    if (p === null || p === undefined || typeof key !== 'string') {
      throw fail('BAD_PARAMETER', `${where} parameter ${i} has no key`);
    }
    const kind = p.kind();
    switch (kind) {
      case ParameterKind.String:
        out[key] = p.stringValue() ?? '';
        break;
      case ParameterKind.Bool:
        out[key] = p.boolValue();
        break;
      case ParameterKind.Double:
        out[key] = p.doubleValue();
        break;
      case ParameterKind.Int: {
        const v = p.intValue();
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
          throw fail(
            'BAD_PARAMETER',
            `${where} parameter '${key.slice(0, 64)}' must be within ±(2^53-1), got ${v}`,
          );
        }
        out[key] = Number(v);
        break;
      }
      default:
        throw fail(
          'BAD_PARAMETER',
          `${where} parameter '${key.slice(0, 64)}' has unknown kind ${String(kind)}`,
        );
    }
  }
  return out;
}
