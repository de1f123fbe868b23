// Number formatting shared by the console, Markdown and HTML renderers, so a figure reads the same
// everywhere it appears.

/** Microseconds as milliseconds with 3 significant digits (0.412, 4.12, 41.2, 412). */
export function ms(us: number): string {
  const v = us / 1000;
  if (v === 0) return '0';
  if (v >= 100) return v.toFixed(0);
  return v.toPrecision(3);
}

/** Requests or inferences per second: whole numbers above 100, else 3 significant digits. */
export function rate(x: number): string {
  if (x >= 100) return Math.round(x).toLocaleString('en-US');
  if (x === 0) return '0';
  return x.toPrecision(3);
}

/** Average cores in use. */
export function cores(x: number | null): string {
  return x === null ? 'n/a' : x.toFixed(2);
}

/** a / b as "1.23×"; '–' when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || b === 0 || !Number.isFinite(a / b)) return '–';
  const r = a / b;
  return `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function levelName(mode: 'concurrency' | 'request-rate', value: number): string {
  return mode === 'concurrency' ? `concurrency ${value}` : `${value} req/s`;
}
