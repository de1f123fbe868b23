// Lint rules: typescript-eslint's type-aware recommended set, plus no floating promises.
import tseslint from 'typescript-eslint';

// The layers of src/, bottom to top, as docs/architecture.md draws them. A folder may import from
// its own layer and the layers below, never from one above: the transports sit on the data plane,
// the data plane on the repository and schedulers, and so on down to the tensor room. Only cli/
// imports server.ts, which composes everything. The client is its own product: it shares the
// protocol, tensor and WebSocket frame codecs, and nothing of the server.
const LAYERS = [
  ['tensor'],
  ['memory', 'protocol', 'config', 'metrics', 'trace', 'compare'],
  ['execution'],
  ['scheduler'],
  ['repository'],
  ['dataplane'],
  ['http'],
  ['websocket', 'grpc'],
  ['cluster'],
  ['validate'],
  ['cli'],
];

/** A `no-restricted-imports` rule refusing the named folders of src/ (and server.ts unless allowed). */
function refuse(who, folders, allowServer = false, why = 'it is a layer above') {
  const patterns = folders.map((f) => ({
    group: [`**/${f}/*`],
    message: `${who} may not import from src/${f}/: ${why} (see docs/architecture.md).`,
  }));
  if (!allowServer) {
    patterns.push({
      group: ['**/server.js'],
      message: `${who} may not import server.ts: it composes the layers, and only cli/ and src/index.ts import it.`,
    });
  }
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const layerRules = [
  ...LAYERS.flatMap((layer, i) =>
    layer.map((folder) => ({
      files: [`src/${folder}/**/*.ts`],
      rules: refuse(`src/${folder}/`, LAYERS.slice(i + 1).flat(), folder === 'cli'),
    })),
  ),
  {
    files: ['workers/**/*.ts'],
    rules: refuse('workers/', LAYERS.slice(3).flat()),
  },
  {
    files: ['src/client/**/*.ts'],
    rules: refuse(
      'src/client/',
      [
        'memory',
        'config',
        'metrics',
        'trace',
        'execution',
        'scheduler',
        'repository',
        'dataplane',
        'http',
        'cli',
      ],
      false,
      'the client shares no server code',
    ),
  },
  {
    // The bench (the @infernode/bench workspace) is a client of the server, not a part of it: it
    // reaches server code only by the package's name, through its public entry points
    // (package.json `exports`: `infernode`, `infernode/client`, `infernode/tooling`), so what it
    // relies on is what the package promises, and a refactor inside src/ cannot break it unseen.
    // Needs something else? Export it from src/tooling.ts.
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src/',
              message:
                "bench/ imports the server by its package name only: 'infernode', 'infernode/client' " +
                "or 'infernode/tooling' (export what it needs from src/tooling.ts).",
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.ci/node24/**',
      'bench/out/**',
      'eslint.config.js',
      // flatc output, committed byte for byte as generated (a test regenerates and compares it);
      // tsc still type-checks it.
      'schemas/generated/**',
      // pbjs output (scripts/generate-grpc-messages.ts), committed as generated; a test
      // regenerates and compares it.
      'bench/grpc-codec/generated/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Tests read parsed JSON responses field by field; typing every response shape adds nothing.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...layerRules,
  {
    // The bundled JavaScript models: plain ES modules a user would write, outside the TypeScript
    // project, linted without type information. Also the build's own pre-compile step, and the
    // test files scripts/run-tests.mjs's test runs (test/fixtures/run-tests).
    files: [
      'model_repository/**/*.mjs',
      'model_repository/**/*.js',
      'scripts/**/*.mjs',
      'test/fixtures/**/*.mjs',
    ],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { console: 'readonly' },
    },
  },
);
