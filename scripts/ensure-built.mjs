// `npm start`'s first step: builds the TypeScript and generates the bundled models when a fresh
// clone has neither. `npm ci` runs no lifecycle script (`ignore-scripts` in .npmrc, so that no
// dependency's install script runs on npm 10 either), the project's `prepare` included, so the
// README's `npm ci && npm start` relies on this. A tree already built starts at once; after
// editing sources, `npm run build` as usual.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const NEEDED = ['dist/src/cli/main.js', 'model_repository/simple/1/model.onnx'];

const missing = NEEDED.filter((f) => !existsSync(path.join(ROOT, f)));
if (missing.length > 0) {
  console.log(`not built yet (${missing.join(', ')} missing): npm run prepare`);
  const npm = process.env.npm_execpath;
  const r =
    npm === undefined
      ? spawnSync('npm', ['run', 'prepare'], { cwd: ROOT, stdio: 'inherit' })
      : spawnSync(process.execPath, [npm, 'run', 'prepare'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
