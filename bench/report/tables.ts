// Plain tables as aligned text (console) and as Markdown; the cell contents are decided by the
// callers, so both renderings always hold the same figures.

export type Align = 'left' | 'right';

export interface Table {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Per column; left when absent. */
  readonly align?: readonly Align[];
}

/**
 * Alignment for `count` columns: the columns at `left` (by default the first, a row's label) left,
 * every other one right, where numbers line up.
 */
export function alignColumns(count: number, left: readonly number[] = [0]): Align[] {
  return Array.from({ length: count }, (_, i) => (left.includes(i) ? 'left' : 'right'));
}

export function textTable(t: Table): string {
  const widths = t.headers.map((h, i) =>
    Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) =>
        t.align?.[i] === 'right' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(t.headers), rule, ...t.rows.map(line)].join('\n');
}

export function markdownTable(t: Table): string {
  const esc = (c: string): string => c.replace(/\|/g, '\\|');
  const sep = t.headers.map((_, i) => (t.align?.[i] === 'right' ? '---:' : '---'));
  return [t.headers, sep, ...t.rows].map((r) => `| ${r.map(esc).join(' | ')} |`).join('\n');
}
