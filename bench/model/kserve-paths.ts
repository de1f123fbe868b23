// KServe v2 paths for one model (and optional version), percent-encoded once here.

export function modelPath(
  model: string,
  version: string,
  leaf: '' | 'infer' | 'stats' | 'config' | 'ready',
): string {
  const base = `/v2/models/${encodeURIComponent(model)}`;
  const versioned = version === '' ? base : `${base}/versions/${encodeURIComponent(version)}`;
  return leaf === '' ? versioned : `${versioned}/${leaf}`;
}
