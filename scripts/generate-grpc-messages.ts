// Generates bench/grpc-codec/generated/infer-messages.{js,d.ts}: protobufjs static code (pbjs
// `static-module`, ES module, with pbts types) for the three messages of the ModelInfer RPCs, from
// the vendored grpc_service.proto. It is what the hand-written codec (src/grpc/infer-*-wire.ts) is
// measured and checked against (bench/grpc-codec.ts, test/unit/grpc/generated-codec.test.ts); the
// server does not load it.
//   node dist/scripts/generate-grpc-messages.js [out-dir]
// protobufjs-cli is a devDependency; the generated code needs protobufjs (its `minimal` runtime).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Relative to the repository root. */
export const DEFAULT_OUT_DIR = 'bench/grpc-codec/generated';
export const OUT_FILE = 'infer-messages.js';
const PROTO_DIR = 'schemas/triton';

/** The messages kept (with what they reference): ModelInfer's and ModelStreamInfer's. */
const MESSAGES = [
  'inference.ModelInferRequest',
  'inference.ModelInferResponse',
  'inference.ModelStreamInferResponse',
];

/**
 * pbjs options: field names as in the proto (as the server's proto-loader options have them), and
 * only encode and decode: verify, from/toObject and the rest are code the codec would not call.
 */
export const PBJS_ARGS = [
  '-t',
  'static-module',
  '-w',
  'esm',
  '--es6',
  '--keep-case',
  '--no-verify',
  '--no-convert',
  '--no-delimited',
  '--no-service',
  '--no-typeurl',
  '--no-create',
];

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Writes infer-messages.js and infer-messages.d.ts into `outDir` (absolute). */
export function generateGrpcMessages(outDir: string): void {
  const pbjs = createRequire(import.meta.url).resolve('protobufjs-cli/bin/pbjs');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'infernode-pbjs-'));
  try {
    const filter = path.join(tmp, 'filter.json');
    writeFileSync(filter, JSON.stringify({ messageNames: MESSAGES }));
    execFileSync(
      process.execPath,
      [
        pbjs,
        ...PBJS_ARGS,
        '--filter',
        filter,
        '-p',
        PROTO_DIR,
        '-o',
        path.join(outDir, OUT_FILE),
        // -d runs pbts on the output: the .d.ts beside it.
        '-d',
        path.join(PROTO_DIR, 'grpc_service.proto'),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = path.resolve(REPO_ROOT, process.argv[2] ?? DEFAULT_OUT_DIR);
  generateGrpcMessages(out);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, path.join(out, OUT_FILE))} and .d.ts\n`);
}
