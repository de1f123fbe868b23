// The median of a list of numbers, the one the bench reports share: the middle value, or the mean
// of the two middle values of an even-length list; `whenEmpty` (NaN unless given) for no values.

export function median(xs: readonly number[], whenEmpty = NaN): number {
  if (xs.length === 0) return whenEmpty;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
