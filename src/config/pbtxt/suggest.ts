// The "did you mean" hint for an unknown field name, shared by the text-format and JSON readers: the
// closest schema field name within edit distance 2 (a shared prefix of 3+ letters counts as 1).

/** ` (did you mean "max_batch_size"?)` when one field name is close to `name`, else ''. */
export function suggestField(name: string, candidates: Iterable<string>): string {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    const prefix = name.length >= 3 && (candidate.startsWith(name) || name.startsWith(candidate));
    const d = prefix ? 1 : editDistance(name, candidate, 3);
    if (d < bestScore) {
      best = candidate;
      bestScore = d;
    }
  }
  return best !== undefined && bestScore <= 2 ? ` (did you mean "${best}"?)` : '';
}

/** Levenshtein distance, giving up (returning `limit`) once it must reach `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= limit) return limit;
    prev = cur;
  }
  return Math.min(prev[b.length] as number, limit);
}
