// JSON spelling for parsed configs in golden files: protobuf's JSON mapping writes NaN and infinities
// as strings, since JSON numbers cannot hold them.

export function canonical(v: unknown): unknown {
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  }
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // defineProperty keeps a "__proto__" map key an own property, as JSON.parse does.
      Object.defineProperty(out, k, {
        value: canonical(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return v;
}
