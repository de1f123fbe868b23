// Generates src/config/generated/model-config-schema.ts from Triton's model_config.proto: the field
// table the config.pbtxt parser reads, and a `Raw*` TypeScript type per message for what it returns.
//   node dist/scripts/generate-config-schema.js [path/to/model_config.proto] [out.ts]
// protobufjs (v6, installed as onnx-proto's dependency) reads the proto here, at generation time
// only: the server never needs protobufjs or the .proto file.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** Triton's proto, vendored (BSD-3-Clause, header kept); relative to the repository root. */
export const DEFAULT_PROTO = 'schemas/triton/model_config.proto';
export const DEFAULT_OUT = 'src/config/generated/model-config-schema.ts';

const SCALARS = new Set([
  'double',
  'float',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
  'bool',
  'string',
  'bytes',
]);

/** `.inference.ModelOptimizationPolicy.Graph` -> `ModelOptimizationPolicy.Graph` */
function relName(fullName: string, pkg: string): string {
  const prefix = `.${pkg}.`;
  if (!fullName.startsWith(prefix)) throw new Error(`${fullName} is outside package ${pkg}`);
  return fullName.slice(prefix.length);
}

/** `ModelOptimizationPolicy.Graph` -> `RawModelOptimizationPolicyGraph` */
function tsName(rel: string): string {
  return `Raw${rel.replace(/\./g, '')}`;
}

function tsScalar(t: string): string {
  if (t === 'bool') return 'boolean';
  if (t === 'string' || t === 'bytes') return 'string';
  return 'number';
}

function collect(ns: protobuf.NamespaceBase, types: protobuf.Type[], enums: protobuf.Enum[]): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) {
      types.push(nested);
      collect(nested, types, enums);
    } else if (nested instanceof protobuf.Enum) {
      enums.push(nested);
    } else if (nested instanceof protobuf.Namespace) {
      collect(nested, types, enums);
    }
  }
}

/** The generated module's full text for the proto source `protoText`. */
export function generateSchemaSource(protoText: string): string {
  const parsed = protobuf.parse(protoText, { keepCase: true });
  const pkg = parsed.package;
  if (pkg === undefined) throw new Error('the proto has no package');
  const root = parsed.root;
  root.resolveAll();
  const types: protobuf.Type[] = [];
  const enums: protobuf.Enum[] = [];
  collect(root, types, enums);

  const seen = new Set<string>();
  const claim = (rel: string): void => {
    const ts = tsName(rel);
    if (seen.has(ts)) throw new Error(`two proto names flatten to ${ts}`);
    seen.add(ts);
  };

  const enumLines: string[] = [];
  const typeLines: string[] = [];
  for (const e of enums) {
    const rel = relName(e.fullName, pkg);
    claim(rel);
    const values = Object.entries(e.values);
    enumLines.push(`    '${rel}': { ${values.map(([k, v]) => `${k}: ${v}`).join(', ')} },`);
    typeLines.push(
      `export type ${tsName(rel)} = ${values.map(([k]) => `'${k}'`).join(' | ')};`,
      '',
    );
  }

  const messageLines: string[] = [];
  for (const t of types) {
    const rel = relName(t.fullName, pkg);
    claim(rel);
    messageLines.push(`    '${rel}': [`);
    if (t.fieldsArray.length === 0) {
      // An empty interface would accept any value; a field-less message is an empty record.
      messageLines.push('    ],');
      typeLines.push(`export type ${tsName(rel)} = Record<string, never>;`, '');
      continue;
    }
    typeLines.push(`export interface ${tsName(rel)} {`);
    for (const f of t.fieldsArray) {
      let typeExpr: string;
      let tsType: string;
      if (SCALARS.has(f.type)) {
        typeExpr = `{ kind: 'scalar', name: '${f.type}' }`;
        tsType = tsScalar(f.type);
      } else if (f.resolvedType instanceof protobuf.Enum) {
        const target = relName(f.resolvedType.fullName, pkg);
        typeExpr = `{ kind: 'enum', name: '${target}' }`;
        tsType = tsName(target);
      } else if (f.resolvedType instanceof protobuf.Type) {
        const target = relName(f.resolvedType.fullName, pkg);
        typeExpr = `{ kind: 'message', name: '${target}' }`;
        tsType = tsName(target);
      } else {
        throw new Error(`${rel}.${f.name}: cannot resolve type ${f.type}`);
      }
      const label = f.map ? 'map' : f.repeated ? 'repeated' : 'optional';
      const extra: string[] = [];
      if (f instanceof protobuf.MapField) {
        if (!SCALARS.has(f.keyType)) throw new Error(`${rel}.${f.name}: bad map key ${f.keyType}`);
        extra.push(`key: '${f.keyType}'`);
      }
      if (f.partOf !== null) extra.push(`oneof: '${f.partOf.name}'`);
      messageLines.push(
        `      { name: '${f.name}', number: ${f.id}, label: '${label}', type: ${typeExpr}${extra.map((x) => `, ${x}`).join('')} },`,
      );
      const wrapped =
        label === 'map'
          ? `Readonly<Record<string, ${tsType}>>`
          : label === 'repeated'
            ? `readonly ${tsType}[]`
            : tsType;
      typeLines.push(`  readonly ${f.name}?: ${wrapped};`);
    }
    messageLines.push('    ],');
    typeLines.push('}', '');
  }

  const sha = createHash('sha256').update(protoText).digest('hex');
  return [
    "// GENERATED by scripts/generate-config-schema.ts from Triton's model_config.proto. Do not edit:",
    '// regenerate with `node dist/scripts/generate-config-schema.js <model_config.proto>`.',
    `// Source sha256: ${sha}`,
    '//',
    '// MODEL_CONFIG_SCHEMA is the field table the config.pbtxt parser reads; the Raw* types describe',
    '// what the parser returns (snake_case names, enums as names, 64-bit integers as safe JS numbers,',
    "// maps as records keyed by the key's text). Fields are in declaration order.",
    '',
    "import type { ProtoSchema } from '../pbtxt/schema.js';",
    '',
    "export const MODEL_CONFIG_ROOT = 'ModelConfig';",
    '',
    'export const MODEL_CONFIG_SCHEMA: ProtoSchema = {',
    '  enums: {',
    ...enumLines,
    '  },',
    '  messages: {',
    ...messageLines,
    '  },',
    '};',
    '',
    ...typeLines,
  ].join('\n');
}

function main(argv: readonly string[]): void {
  const [protoArg, outArg, ...rest] = argv;
  if (rest.length > 0)
    throw new Error('usage: generate-config-schema.js [model_config.proto] [out.ts]');
  const proto = protoArg ?? DEFAULT_PROTO;
  const out = path.resolve(outArg ?? DEFAULT_OUT);
  const text = generateSchemaSource(readFileSync(proto, 'utf8'));
  writeFileSync(out, text);
  process.stdout.write(`generate-config-schema: wrote ${out} from ${proto}\n`);
}

// Run only as the entry point, so the sync test can import generateSchemaSource.
const entry = process.argv[1];
if (entry !== undefined && path.resolve(entry) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err: unknown) {
    process.stderr.write(
      `generate-config-schema: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exitCode = 1;
  }
}
