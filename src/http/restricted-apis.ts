// `--http-restricted-api=<category>[,<category>...]:<header>=<value>`: Triton's rule that a request
// to an endpoint of a restricted category must carry `<header>: <value>`, or get 403. Owns the
// flag's parsing, the check, and the wrapper that applies it in front of the routes; the WebSocket
// endpoint checks its frames against the same restrictions.

import { fail, type InferenceServerError } from '../errors.js';
import {
  parseRestrictionSpec,
  refuseRepeatedCategories,
  secretMatches,
  type RestrictedCategory,
} from '../protocol/restricted-features.js';
import { apiCategory } from './api-category.js';
import { errorReply } from './error-reply.js';
import type { HttpHandler } from './front-end.js';

export interface ApiRestriction {
  readonly categories: readonly RestrictedCategory[];
  /** The header a request must carry, lower case (header names are case-insensitive). */
  readonly header: string;
  readonly value: string;
}

const FLAG = '--http-restricted-api';

// RFC 9110 §5.6.2: a header name is a token. Any other name could never arrive, so the
// restriction would refuse every request.
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

export function parseApiRestriction(spec: string): ApiRestriction {
  const { categories, key, value } = parseRestrictionSpec(spec, {
    flag: FLAG,
    category: 'category',
    key: 'header',
  });
  const header = key.toLowerCase();
  if (!TOKEN.test(header)) {
    throw fail('BAD_REQUEST', `${FLAG}: '${key}' is not a valid header name, in '${spec}'`);
  }
  return Object.freeze({ categories, header, value });
}

/** Every `--http-restricted-api` value, parsed, refusing a category restricted twice. */
export function parseApiRestrictions(specs: readonly string[]): readonly ApiRestriction[] {
  const list = Object.freeze(specs.map(parseApiRestriction));
  byCategory(list);
  return list;
}

/**
 * What one set of request headers may reach: the refusal for a category, or undefined where the
 * headers satisfy its restriction (or it has none).
 */
export type ApiAccess = (category: RestrictedCategory) => InferenceServerError | undefined;

/** Reads one request header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

export class RestrictedApis {
  readonly #byCategory: ReadonlyMap<RestrictedCategory, ApiRestriction>;

  constructor(list: readonly ApiRestriction[]) {
    this.#byCategory = byCategory(list);
  }

  /** The refusal of a request in `category` whose headers `header` reads, if it is refused. */
  refusal(category: RestrictedCategory, header: HeaderReader): InferenceServerError | undefined {
    const r = this.#byCategory.get(category);
    if (r === undefined || secretMatches(header(r.header), r.value)) return undefined;
    // Triton's words (http_server.cc RespondIfRestricted).
    return fail('RESTRICTED_API', `This API is restricted, expecting header '${r.header}'`);
  }

  /**
   * Decides every restricted category at once for one set of headers, which may be gone by the
   * time the answer is used: a WebSocket's upgrade headers, against which each frame is checked.
   */
  accessFor(header: HeaderReader): ApiAccess {
    const refused = new Map<RestrictedCategory, InferenceServerError>();
    for (const category of this.#byCategory.keys()) {
      const err = this.refusal(category, header);
      if (err !== undefined) refused.set(category, err);
    }
    return (category) => refused.get(category);
  }

  /**
   * The routes behind the check: a request to an endpoint of a restricted category without its
   * header gets 403 before it is routed, so before the method check (405) and any body decoding,
   * as in Triton. Paths outside every category go through untouched (unknown ones to their 404).
   */
  guard(routes: HttpHandler): HttpHandler {
    if (this.#byCategory.size === 0) return routes;
    return (call) => {
      const category = apiCategory(call.path);
      const refused =
        category === undefined ? undefined : this.refusal(category, (n) => call.header(n));
      return refused === undefined ? routes(call) : errorReply(refused);
    };
  }
}

/** Category -> its restriction; Triton refuses a category named in two restrictions at start-up. */
function byCategory(list: readonly ApiRestriction[]): Map<RestrictedCategory, ApiRestriction> {
  refuseRepeatedCategories(list, FLAG, 'api');
  const map = new Map<RestrictedCategory, ApiRestriction>();
  for (const r of list) for (const c of r.categories) map.set(c, r);
  return map;
}
