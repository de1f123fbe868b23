// Ordinary least squares of y on x: the slope of a memory curve per cycle, so "it grows" is a
// number with a fit quality rather than a reading of two endpoints.

export interface LinearFit {
  readonly slope: number;
  readonly intercept: number;
  /** Coefficient of determination: 1 when the points lie on the line, 0 when x explains nothing. */
  readonly r2: number;
  readonly points: number;
}

export function linearFit(points: readonly (readonly [number, number])[]): LinearFit {
  const n = points.length;
  if (n < 2) throw new Error(`a line needs at least 2 points, got ${n}`);
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxx += (x - mx) * (x - mx);
    sxy += (x - mx) * (y - my);
    syy += (y - my) * (y - my);
  }
  if (sxx === 0) throw new Error('every point has the same x: no slope');
  const slope = sxy / sxx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept: my - slope * mx, r2, points: n };
}
