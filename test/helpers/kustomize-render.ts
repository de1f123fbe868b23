// Renders a kustomization directory the way `kubectl apply -k` would, for the part of kustomize
// deploy/kubernetes uses (resources, images, JSON patches on a target): the tests validate what
// would reach the cluster, not the patch files alone. Any other kustomize field is refused by the
// KUSTOMIZATION shape, so a layout that outgrows this renderer fails loudly instead of rendering
// wrong.

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { checkShape } from './resource-shape.js';
import { JSON_PATCH, KUSTOMIZATION } from './crd-shapes.js';

export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly [k: string]: unknown };
  readonly [field: string]: unknown;
}

interface Kustomization {
  resources: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string; target: { kind: string; name: string } }[];
}

interface PatchOp {
  op: 'add' | 'replace';
  path: string;
  value: unknown;
}

/** Every document of a YAML file, each required to be a Kubernetes object. */
export function readManifests(file: string): Manifest[] {
  return yaml.loadAll(readFileSync(file, 'utf8')).map((doc, i) => {
    const m = doc as Partial<Manifest> | null;
    if (m === null || typeof m.apiVersion !== 'string' || typeof m.kind !== 'string') {
      throw new Error(`${file}, document ${i}: expected apiVersion and kind`);
    }
    return m as Manifest;
  });
}

function must(errors: string[], what: string): void {
  if (errors.length > 0) throw new Error(`${what}:\n  ${errors.join('\n  ')}`);
}

/** RFC 6901: "/a/b~1c" -> ["a", "b/c"]. */
function pointer(p: string): string[] {
  return p
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyPatch(doc: unknown, op: PatchOp, where: string): void {
  const keys = pointer(op.path);
  const last = keys.pop();
  let node = doc as Record<string, unknown>;
  for (const k of keys) {
    const next = node[k];
    if (next === null || typeof next !== 'object') {
      throw new Error(`${where}: ${op.op} ${op.path}: no object at '${k}'`);
    }
    node = next as Record<string, unknown>;
  }
  if (last === undefined) throw new Error(`${where}: ${op.op} on the whole document`);
  if (op.op === 'replace' && !(last in node)) {
    throw new Error(`${where}: replace ${op.path}: nothing there to replace`);
  }
  if (op.op === 'add' && Array.isArray(node) && last !== '-') {
    node.splice(Number(last), 0, op.value);
  } else if (Array.isArray(node) && last === '-') {
    node.push(op.value);
  } else {
    node[last] = op.value;
  }
}

/** The objects `kubectl apply -k dir` would send, in order. */
export function renderKustomization(dir: string): Manifest[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = yaml.load(readFileSync(file, 'utf8'));
  must(checkShape(k, KUSTOMIZATION), file);
  const kust = k as Kustomization;
  const out = kust.resources.flatMap((r) => {
    const p = path.join(dir, r);
    return statSync(p).isDirectory() ? renderKustomization(p) : readManifests(p);
  });
  for (const patch of kust.patches ?? []) {
    const patchFile = path.join(dir, patch.path);
    const ops = yaml.load(readFileSync(patchFile, 'utf8'));
    must(checkShape(ops, JSON_PATCH), patchFile);
    const targets = out.filter(
      (m) => m.kind === patch.target.kind && m.metadata.name === patch.target.name,
    );
    if (targets.length !== 1) {
      throw new Error(`${patchFile}: ${targets.length} targets ${JSON.stringify(patch.target)}`);
    }
    for (const op of ops as PatchOp[]) applyPatch(targets[0], op, patchFile);
  }
  for (const image of kust.images ?? []) {
    for (const c of containersOf(out)) {
      const [name, tag] = c.image.split(':');
      if (name !== image.name) continue;
      c.image = `${image.newName ?? name}:${image.newTag ?? tag ?? 'latest'}`;
    }
  }
  return out;
}

/** The containers of every pod template among `manifests` (Deployments). */
export function containersOf(manifests: readonly Manifest[]): { image: string }[] {
  return manifests.flatMap((m) => {
    const spec = m.spec as { template?: { spec?: { containers?: { image: string }[] } } };
    return spec.template?.spec?.containers ?? [];
  });
}
