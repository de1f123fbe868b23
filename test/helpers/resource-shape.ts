// A small structural schema for the custom resources no npm package describes (KServe's, Prometheus
// Operator's, prometheus-adapter's configuration, kustomize's): each shape names the fields a
// manifest may use and their types, refuses fields it does not name (a typo is an error, as with
// `kubectl apply --validate=strict`), and hands embedded Kubernetes types (a container) to
// kubernetes-models, which validates them against the Kubernetes OpenAPI schemas.

import { Container } from 'kubernetes-models/v1/Container';

export type Shape =
  | 'any'
  | 'string'
  | 'integer'
  | 'boolean'
  | 'int-or-string'
  | { readonly enum: readonly string[] }
  | { readonly array: Shape }
  | { readonly map: Shape }
  | {
      readonly object: Readonly<Record<string, Shape>>;
      readonly required?: readonly string[];
      /** Fields not listed here are accepted unchecked: the parts of a CRD this file does not model. */
      readonly open?: boolean;
    }
  | { readonly k8s: 'Container' };

function kindOf(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

/** Every place `value` departs from `shape`, as "path: expected X, got Y" lines; [] when it fits. */
export function checkShape(value: unknown, shape: Shape, at = ''): string[] {
  const where = at === '' ? '/' : at;
  if (shape === 'any') return [];
  if (typeof shape === 'string') {
    const ok =
      shape === 'string'
        ? typeof value === 'string'
        : shape === 'boolean'
          ? typeof value === 'boolean'
          : shape === 'integer'
            ? Number.isInteger(value)
            : Number.isInteger(value) || typeof value === 'string';
    return ok ? [] : [`${where}: expected ${shape}, got ${kindOf(value)} ${JSON.stringify(value)}`];
  }
  if ('enum' in shape) {
    return typeof value === 'string' && shape.enum.includes(value)
      ? []
      : [`${where}: expected one of ${shape.enum.join(', ')}, got ${JSON.stringify(value)}`];
  }
  if ('array' in shape) {
    if (!Array.isArray(value)) return [`${where}: expected an array, got ${kindOf(value)}`];
    return value.flatMap((item, i) => checkShape(item, shape.array, `${at}/${i}`));
  }
  if ('k8s' in shape) {
    try {
      new Container(value as Container).validate();
      return [];
    } catch (err) {
      return [`${where}: not a valid ${shape.k8s}: ${(err as Error).message}`];
    }
  }
  if (kindOf(value) !== 'object') return [`${where}: expected an object, got ${kindOf(value)}`];
  const record = value as Record<string, unknown>;
  if ('map' in shape) {
    return Object.entries(record).flatMap(([k, v]) => checkShape(v, shape.map, `${at}/${k}`));
  }
  const errors = (shape.required ?? [])
    .filter((k) => record[k] === undefined)
    .map((k) => `${at}/${k}: required, missing`);
  for (const [k, v] of Object.entries(record)) {
    const field = shape.object[k];
    if (field !== undefined) errors.push(...checkShape(v, field, `${at}/${k}`));
    else if (shape.open !== true)
      errors.push(`${at}/${k}: unknown field (known: ${Object.keys(shape.object).join(', ')})`);
  }
  return errors;
}
