// What `npm pack` puts in the published tarball (package.json's `files`): the compiled server and
// what it reads at run time, with no tests, benchmarks, model generators or source maps. Reads
// `npm pack --dry-run --json` (local, no network) and walks the module graph from the package's
// entry points, so a new run-time import of a file left out of `files` fails here, not on a
// user's machine.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/paths.js';

interface PackReport {
  entryCount: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/**
 * Today 512 files: ~235 compiled modules in dist/src, each a .js and a .d.ts, plus docs/, deploy/
 * and schemas/. The bound leaves room for the server to grow by half, and fails at once if test or
 * bench output comes back (dist/test alone is ~800 files).
 */
const MAX_FILES = 800;
/** Today 2.1 MB. The bundled model_repository's .onnx files alone would add 20 MB. */
const MAX_UNPACKED_BYTES = 5_000_000;

/** Nothing under these ships: tests, benchmarks and their results, the model generators, CI. */
const FORBIDDEN_PREFIXES = [
  'test/',
  'bench/',
  'dist/test/',
  'dist/bench/',
  'dist/scripts/',
  'scripts/',
  'src/',
  '.ci/',
  'model_repository/',
];

/** Entry points package.json does not name: the worker threads' files, started by path. */
const WORKER_ENTRIES = [
  'dist/workers/ort-worker.js',
  'dist/workers/js-worker.js',
  'dist/src/cluster/front-end-worker.js',
];

function packDryRun(): PackReport {
  // --ignore-scripts: `npm pack` runs `prepare` (build and models) otherwise, and the build empties
  // dist/, which this test runs from. The tarball is described from dist/ as it is now.
  const stdout = execFileSync(
    'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'],
    { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
  );
  const reports = JSON.parse(stdout) as PackReport[];
  assert.equal(reports.length, 1, `one package expected, npm pack described ${reports.length}`);
  return reports[0] as PackReport;
}

/** Every file package.json points at: bin, main, types, and each `exports` target. */
function manifestEntries(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    main: string;
    types: string;
    bin: Record<string, string>;
    exports: Record<string, string | Record<string, string>>;
  };
  const targets = [pkg.main, pkg.types, ...Object.values(pkg.bin)];
  for (const target of Object.values(pkg.exports)) {
    targets.push(...(typeof target === 'string' ? [target] : Object.values(target)));
  }
  return targets.map((t) => path.posix.normalize(t));
}

// `from './x.js'`, `import('./x.js')`, `import './x.js'`, and `new URL('./x.js', import.meta.url)`
// (how the worker files and the gRPC protos are found) in the compiled JavaScript.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)'(\.[^']*)'/g;
const URL_REFERENCE = /new URL\('(\.[^']*)',\s*import\.meta\.url\)/g;

/**
 * The repository-relative paths the given JavaScript files reach through relative imports and
 * import.meta.url references, followed transitively through JavaScript files. A reference ending
 * in `/` names a directory.
 */
function reachable(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.js')) continue;
    const source = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const match of [...source.matchAll(SPECIFIER), ...source.matchAll(URL_REFERENCE)]) {
      // path.posix.join keeps a directory's trailing slash.
      queue.push(path.posix.join(path.posix.dirname(file), match[1] as string));
    }
  }
  return seen;
}

void describe('published package contents (npm pack)', () => {
  let report: PackReport;
  let packed: Set<string>;
  before(() => {
    report = packDryRun();
    packed = new Set(report.files.map((f) => f.path));
  });

  void it('ships no tests, benchmarks, generators, sources or bundled models', () => {
    const stray = report.files
      .map((f) => f.path)
      .filter((p) => FORBIDDEN_PREFIXES.some((prefix) => p.startsWith(prefix)));
    assert.deepEqual(stray, []);
  });

  void it('ships no source maps (the TypeScript they point at is not packed)', () => {
    assert.deepEqual(
      report.files.map((f) => f.path).filter((p) => p.endsWith('.map')),
      [],
    );
  });

  void it('ships the CLI, the library entries and the worker entries', () => {
    const entries = [...manifestEntries(), ...WORKER_ENTRIES];
    assert.ok(entries.includes('dist/src/cli/main.js'), 'bin names dist/src/cli/main.js');
    const missing = entries.filter((e) => !packed.has(e));
    assert.deepEqual(missing, []);
  });

  void it('ships every file the entries reach at run time', () => {
    const jsEntries = [...manifestEntries(), ...WORKER_ENTRIES].filter((e) => e.endsWith('.js'));
    const files = [...packed];
    const missing = [...reachable(jsEntries)].filter((p) =>
      p.endsWith('/') ? !files.some((f) => f.startsWith(p)) : !packed.has(p),
    );
    assert.deepEqual(missing, []);
  });

  void it('stays within its file count and size bounds', () => {
    assert.ok(
      report.entryCount <= MAX_FILES,
      `${report.entryCount} files packed, at most ${MAX_FILES} expected`,
    );
    assert.ok(
      report.unpackedSize <= MAX_UNPACKED_BYTES,
      `${report.unpackedSize} bytes unpacked, at most ${MAX_UNPACKED_BYTES} expected`,
    );
  });
});
