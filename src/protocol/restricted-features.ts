// Triton's restricted features (restricted_features.h), shared by --http-restricted-api and
// --grpc-restricted-protocol: the API categories a header can guard, the
// `<category>[,<category>...]:<key>=<value>` spec both flags take, and the header comparison.

import { createHash, timingSafeEqual } from 'node:crypto';
import { fail } from '../errors.js';

/** Triton's categories, in its order (the order error messages list them in). */
export const RESTRICTED_CATEGORIES = Object.freeze([
  'health',
  'metadata',
  'inference',
  'shared-memory',
  'model-config',
  'model-repository',
  'statistics',
  'trace',
  'logging',
] as const);

export type RestrictedCategory = (typeof RESTRICTED_CATEGORIES)[number];

export function isRestrictedCategory(s: string): s is RestrictedCategory {
  return (RESTRICTED_CATEGORIES as readonly string[]).includes(s);
}

/** One spec, split: which categories need which header with which value. */
export interface RestrictionSpec {
  readonly categories: readonly RestrictedCategory[];
  /** The key as written, trimmed; each flag turns it into its header name. */
  readonly key: string;
  /** Everything after the first `=`, untrimmed: it may hold `=` and `:` itself. */
  readonly value: string;
}

/** How a flag names itself and its parts in its error messages. */
export interface SpecWording {
  /** e.g. `--http-restricted-api`. */
  readonly flag: string;
  /** What the flag calls a category: `category`, or gRPC's `protocol`. */
  readonly category: string;
  /** What the flag calls the key: `header`, or gRPC's `key`. */
  readonly key: string;
}

export function parseRestrictionSpec(spec: string, wording: SpecWording): RestrictionSpec {
  const m = /^([^:]+):([^=]+)=(.*)$/.exec(spec);
  if (m === null) {
    const c = wording.category;
    throw fail(
      'BAD_REQUEST',
      `${wording.flag}: expected <${c}>[,<${c}>...]:<${wording.key}>=<value>, got '${spec}'`,
    );
  }
  const categories = (m[1] as string).split(',').map((p) => p.trim());
  for (const c of categories) {
    if (!isRestrictedCategory(c)) {
      throw fail(
        'BAD_REQUEST',
        `${wording.flag}: unknown ${wording.category} '${c}'; expected one of ` +
          RESTRICTED_CATEGORIES.join(', '),
      );
    }
  }
  return Object.freeze({
    categories: Object.freeze(categories as RestrictedCategory[]),
    key: (m[2] as string).trim(),
    value: m[3] as string,
  });
}

/**
 * Refuses, as Triton's command-line parser does, a category named in two specs of one flag (or
 * twice in one): each category takes exactly one header and value. `feature` is Triton's word for
 * the flag's categories: `api` for HTTP, `protocol` for gRPC.
 */
export function refuseRepeatedCategories(
  specs: readonly { readonly categories: readonly RestrictedCategory[] }[],
  flag: string,
  feature: 'api' | 'protocol',
): void {
  const seen = new Set<RestrictedCategory>();
  for (const spec of specs) {
    for (const c of spec.categories) {
      if (seen.has(c)) {
        throw fail(
          'BAD_REQUEST',
          `${flag}: restricted ${feature} '${c}' can not be specified in multiple config groups`,
        );
      }
      seen.add(c);
    }
  }
}

/**
 * Whether a received header value equals the configured one, in time that depends on neither: both
 * are hashed to SHA-256 first, so `timingSafeEqual` compares two 32-byte digests and the length of
 * the secret does not leak through an early return either. A missing header is refused at once;
 * whether it was sent is no secret.
 */
export function secretMatches(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  return timingSafeEqual(sha256(received), sha256(expected));
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
