// Paths tests use, resolved from the compiled file (dist/test/helpers) back to the repository root.

import { fileURLToPath } from 'node:url';
import path from 'node:path';
// Every test that reaches a model finds it through here: ONNX Runtime's telemetry off for all.
import './ort-telemetry-off.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MODEL_REPOSITORY = path.join(REPO_ROOT, 'model_repository');
export const TEST_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
export const DIST = path.join(REPO_ROOT, 'dist');
