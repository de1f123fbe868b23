// Runs before `tsc` in `npm run build`, which compiles incrementally into dist/ instead of starting
// from an empty folder (a full compile takes 40 s of CPU; CI builds three times on one tree, and
// unchanged sources now cost a few seconds). What the empty folder used to guarantee, this keeps:
//  - an output whose source is gone is deleted (a removed test must not run from dist/);
//  - if an output of an existing source is missing (dist/ edited by hand), the build info is
//    deleted too, so tsc compiles everything again instead of trusting a record of files it wrote.
// Plain JavaScript: it runs before anything is compiled.

import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DIST = path.join(ROOT, 'dist');
const BUILD_INFO = path.join(DIST, '.tsbuildinfo');
/**
 * tsconfig.json's `include`, and schemas/ (its generated code is compiled because src imports it):
 * the folders compiled into dist/ under the same relative paths.
 */
const SOURCE_DIRS = ['src', 'workers', 'scripts', 'test', 'bench', 'schemas'];
const OUTPUT = /^(.*?)(\.d\.ts\.map|\.d\.ts|\.js\.map|\.js|\.json)$/;

/** Every file under `dir`, as paths relative to `base`. */
function walk(dir, base, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') walk(full, base, out);
    } else out.push(path.relative(base, full));
  }
  return out;
}

/** The source of an output file, or null where it has none (a .json output is its source). */
function sourceOf(rel) {
  const m = OUTPUT.exec(rel);
  if (m === null) return null;
  const [, stem, ext] = m;
  return ext === '.json' ? `${stem}.json` : `${stem}.ts`;
}

let pruned = 0;
for (const top of SOURCE_DIRS) {
  for (const rel of walk(path.join(DIST, top), DIST)) {
    const src = sourceOf(rel);
    if (src !== null && existsSync(path.join(ROOT, src))) continue;
    rmSync(path.join(DIST, rel));
    pruned += 1;
  }
}

let missing = 0;
for (const top of SOURCE_DIRS) {
  for (const rel of walk(path.join(ROOT, top), ROOT)) {
    if (!rel.endsWith('.ts') || rel.endsWith('.d.ts')) continue;
    if (!existsSync(path.join(DIST, rel.replace(/\.ts$/, '.js')))) missing += 1;
  }
}
if (missing > 0 && existsSync(BUILD_INFO)) rmSync(BUILD_INFO);
if (pruned > 0) console.log(`prune-dist: removed ${pruned} outputs whose sources are gone`);
