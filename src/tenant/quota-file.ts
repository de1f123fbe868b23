// The quota file (--quota-file): parsed once per read into a frozen `QuotaConfig`, or refused with
// the JSON path (and, for a syntax error, the line) named. docs/operations.md "Tenant quotas" shows
// the format; nothing else reads the raw JSON.

import { readFileSync } from 'node:fs';
import { deepFreeze } from '../config/deep-freeze.js';
import { fail } from '../errors.js';

/** One set of limits; an absent limit is not checked. */
export interface QuotaLimits {
  /** Requests per second, refilled continuously (token bucket). */
  readonly rps?: number;
  /** The bucket's size: requests that may arrive at once after a quiet spell (default: rps, ≥ 1). */
  readonly burst?: number;
  /** Requests admitted and not yet answered. */
  readonly inFlight?: number;
  /** A fraction (0, 1] of the model's max_queue_size the tenant's requests may hold. */
  readonly queue?: number;
}

export interface TenantQuota {
  /** Limits over all the tenant's requests (a named tenant inherits what it leaves out from default). */
  readonly limits: QuotaLimits;
  /** Weight for fair dequeuing (ValidatedRequest.tenant.weight); default 1. */
  readonly share: number;
  /** Per-model limits, checked as well as the tenant-wide ones, with their own buckets and counts. */
  readonly models: ReadonlyMap<string, QuotaLimits>;
}

export interface QuotaConfig {
  /** What a tenant not in `tenants` (or a request without the header) gets. */
  readonly unknown: 'default' | 'refuse';
  readonly default: TenantQuota;
  readonly tenants: ReadonlyMap<string, TenantQuota>;
}

/** --tenant-header without --quota-file: tenants are told apart (metrics, spans), nothing limited. */
export const NO_QUOTAS: QuotaConfig = Object.freeze({
  unknown: 'default',
  default: Object.freeze({ limits: Object.freeze({}), share: 1, models: new Map() }),
  tenants: new Map(),
});

const LIMIT_FIELDS = ['rps', 'burst', 'in_flight', 'queue'] as const;
const TENANT_FIELDS = [...LIMIT_FIELDS, 'share', 'models'] as const;

/** Reads and parses the file; a failure names the file and where in it. */
export function readQuotaFile(path: string): QuotaConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw fail('BAD_REQUEST', `--quota-file: cannot read ${path}: ${(e as Error).message}`);
  }
  return parseQuotaText(text, path);
}

export function parseQuotaText(text: string, source: string): QuotaConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw fail('BAD_REQUEST', `${source}: ${syntaxWhere(text, e as Error)}`);
  }
  return parseQuotaJson(doc, source);
}

export function parseQuotaJson(doc: unknown, source: string): QuotaConfig {
  const bad = (path: string, what: string): never => {
    throw fail('BAD_REQUEST', `${source}: ${path}: ${what}`);
  };
  const root = object(doc, '$', bad);
  for (const k of Object.keys(root)) {
    if (k !== 'unknown' && k !== 'default' && k !== 'tenants') {
      bad(`$.${k}`, 'unknown field (expected unknown, default, tenants)');
    }
  }
  const unknown = root['unknown'] ?? 'default';
  if (unknown !== 'default' && unknown !== 'refuse') {
    return bad('$.unknown', `expected "default" or "refuse", got ${JSON.stringify(unknown)}`);
  }
  const base =
    root['default'] === undefined
      ? { limits: {}, share: 1, models: new Map<string, QuotaLimits>() }
      : tenant(root['default'], '$.default', {}, bad);
  const tenants = new Map<string, TenantQuota>();
  if (root['tenants'] !== undefined) {
    for (const [name, t] of Object.entries(object(root['tenants'], '$.tenants', bad))) {
      tenants.set(name, tenant(t, `$.tenants[${JSON.stringify(name)}]`, base.limits, bad));
    }
  }
  return deepFreeze({ unknown, default: base, tenants }) as QuotaConfig;
}

type Bad = (path: string, what: string) => never;

function object(v: unknown, path: string, bad: Bad): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(path, 'expected an object');
  return v as Record<string, unknown>;
}

function tenant(v: unknown, path: string, inherit: QuotaLimits, bad: Bad): TenantQuota {
  const o = object(v, path, bad);
  for (const k of Object.keys(o)) {
    if (!(TENANT_FIELDS as readonly string[]).includes(k)) {
      bad(`${path}.${k}`, `unknown field (expected ${TENANT_FIELDS.join(', ')})`);
    }
  }
  const own = limits(o, path, bad);
  const share = o['share'] === undefined ? 1 : positiveNumber(o['share'], `${path}.share`, bad);
  const models = new Map<string, QuotaLimits>();
  if (o['models'] !== undefined) {
    for (const [m, l] of Object.entries(object(o['models'], `${path}.models`, bad))) {
      const mp = `${path}.models[${JSON.stringify(m)}]`;
      const lo = object(l, mp, bad);
      for (const k of Object.keys(lo)) {
        if (!(LIMIT_FIELDS as readonly string[]).includes(k)) {
          bad(`${mp}.${k}`, `unknown field (expected ${LIMIT_FIELDS.join(', ')})`);
        }
      }
      models.set(m, limits(lo, mp, bad));
    }
  }
  // A named tenant's own rps with the default's burst would be surprising: burst follows rps.
  const merged: QuotaLimits = {
    ...inherit,
    ...(own.rps !== undefined && own.burst === undefined && { burst: undefined }),
    ...own,
  };
  return { limits: strip(merged), share, models };
}

function limits(o: Record<string, unknown>, path: string, bad: Bad): QuotaLimits {
  const out: { rps?: number; burst?: number; inFlight?: number; queue?: number } = {};
  if (o['rps'] !== undefined) out.rps = positiveNumber(o['rps'], `${path}.rps`, bad);
  if (o['burst'] !== undefined) {
    const b = positiveNumber(o['burst'], `${path}.burst`, bad);
    if (b < 1) bad(`${path}.burst`, `expected a number >= 1, got ${b}`);
    out.burst = b;
  }
  if (o['in_flight'] !== undefined) {
    const n = o['in_flight'];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
      bad(`${path}.in_flight`, `expected an integer >= 1, got ${JSON.stringify(n)}`);
    }
    out.inFlight = n as number;
  }
  if (o['queue'] !== undefined) {
    const q = positiveNumber(o['queue'], `${path}.queue`, bad);
    if (q > 1) bad(`${path}.queue`, `expected a fraction in (0, 1], got ${q}`);
    out.queue = q;
  }
  if (out.burst !== undefined && out.rps === undefined) {
    bad(`${path}.burst`, 'burst needs rps');
  }
  return out;
}

function strip(l: QuotaLimits): QuotaLimits {
  return Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as QuotaLimits;
}

function positiveNumber(v: unknown, path: string, bad: Bad): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    bad(path, `expected a number > 0, got ${JSON.stringify(v)}`);
  }
  return v as number;
}

/** "line L column C: <reason>" from JSON.parse's message, which gives a character position. */
function syntaxWhere(text: string, e: Error): string {
  const m = /position (\d+)/.exec(e.message);
  if (m === null) return `invalid JSON: ${e.message}`;
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `invalid JSON at line ${line} column ${column}: ${e.message}`;
}
