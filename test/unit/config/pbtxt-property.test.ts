// Property tests for the config.pbtxt parser: random ModelConfig messages printed in random valid
// spellings parse back to themselves; random bytes, token soups and mutated configs only ever produce
// a result or a CONFIG_SYNTAX InferenceServerError (never another exception, never a hang).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  MODEL_CONFIG_ROOT,
  MODEL_CONFIG_SCHEMA,
} from '../../../src/config/generated/model-config-schema.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import type { PbMessage, PbValue } from '../../../src/config/pbtxt/parser.js';
import {
  compileSchema,
  type FieldSchema,
  type FieldType,
  type ScalarType,
} from '../../../src/config/pbtxt/schema.js';
import { InferenceServerError } from '../../../src/errors.js';
import { RandomPrinter, seededRandom } from './pbtxt-printer.js';

const schema = compileSchema(MODEL_CONFIG_SCHEMA);

/** Strings that survive UTF-8 (no lone surrogates), with quotes, backslashes and controls likely. */
const text = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('"', "'", '\\', '\n', '\t', '\0', '#', '{', 'é', '😀', '\u007f'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 12,
  })
  .filter((s) => Buffer.from(s, 'utf8').toString('utf8') === s);

function scalarArb(t: ScalarType): fc.Arbitrary<PbValue> {
  switch (t) {
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return fc.integer();
    case 'uint32':
    case 'fixed32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return fc.maxSafeInteger();
    case 'uint64':
    case 'fixed64':
      return fc.maxSafeNat();
    case 'float':
    case 'double':
      return fc.double();
    case 'bool':
      return fc.boolean();
    case 'string':
    case 'bytes':
      return text;
  }
}

const messageArbs = new Map<string, fc.Arbitrary<PbMessage>>();

function valueArb(t: FieldType): fc.Arbitrary<PbValue> {
  switch (t.kind) {
    case 'scalar':
      return scalarArb(t.name);
    case 'enum':
      return fc.constantFrom(...(schema.enums.get(t.name)?.byName.keys() ?? []));
    case 'message':
      return messageArb(t.name);
  }
}

function keyArb(t: ScalarType): fc.Arbitrary<string> {
  if (t === 'bool') return fc.constantFrom('true', 'false');
  if (t === 'string') return text;
  return (scalarArb(t) as fc.Arbitrary<number>).map(String);
}

function fieldArb(f: FieldSchema): fc.Arbitrary<PbValue> {
  const v = valueArb(f.type);
  if (f.label === 'repeated') return fc.array(v, { maxLength: 3 });
  if (f.label === 'map') {
    return fc.array(fc.tuple(keyArb(f.key ?? 'string'), v), { maxLength: 3 }).map((entries) => {
      const m: PbMessage = {};
      for (const [k, x] of entries) {
        Object.defineProperty(m, k, {
          value: x,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return m;
    });
  }
  return v;
}

/** Any message of `type`: each field present or not, at most one member of each oneof. */
function messageArb(type: string): fc.Arbitrary<PbMessage> {
  let arb = messageArbs.get(type);
  if (arb === undefined) {
    const fields = MODEL_CONFIG_SCHEMA.messages[type] ?? [];
    const model: Record<string, fc.Arbitrary<PbValue>> = {};
    for (const f of fields) model[f.name] = fieldArb(f);
    arb = fc.record(model, { requiredKeys: [] }).map((rec) => {
      const out: PbMessage = {};
      const oneofs = new Set<string>();
      for (const f of fields) {
        const v = rec[f.name];
        if (v === undefined) continue;
        if (f.oneof !== undefined) {
          if (oneofs.has(f.oneof)) continue;
          oneofs.add(f.oneof);
        }
        out[f.name] = v;
      }
      return out;
    });
    messageArbs.set(type, arb);
  }
  return arb;
}

function expectOnlySyntaxErrors(input: string | Uint8Array): void {
  try {
    parseModelConfig(input, 'fuzz.pbtxt');
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, `threw a non-catalogued error: ${String(e)}`);
    assert.equal(e.code, 'CONFIG_SYNTAX');
    assert.match(e.message, /^fuzz\.pbtxt:\d+:\d+: /);
  }
}

void test('any ModelConfig, printed in random valid spellings, parses back to itself', () => {
  fc.assert(
    fc.property(messageArb(MODEL_CONFIG_ROOT), fc.integer(), (msg, seed) => {
      const printed = new RandomPrinter(schema, seededRandom(seed)).message(msg, MODEL_CONFIG_ROOT);
      assert.deepStrictEqual(parseModelConfig(printed, 'printed.pbtxt'), msg, printed);
    }),
    { numRuns: 300 },
  );
});

void test('random bytes only ever parse or fail with CONFIG_SYNTAX', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), expectOnlySyntaxErrors), {
    numRuns: 2000,
  });
});

const FIELD_NAMES = [
  ...new Set(Object.values(MODEL_CONFIG_SCHEMA.messages).flatMap((fs) => fs.map((f) => f.name))),
];
const ENUM_NAMES = [...schema.enums.values()].flatMap((e) => [...e.byName.keys()]);
const token = fc.oneof(
  fc.constantFrom(...FIELD_NAMES),
  fc.constantFrom(...ENUM_NAMES),
  fc.constantFrom(
    '{',
    '}',
    '<',
    '>',
    '[',
    ']',
    ':',
    ',',
    ';',
    '-',
    '#',
    '"',
    "'",
    '\\',
    'key',
    'value',
  ),
  fc.constantFrom(
    '0x',
    '0x1g',
    '1e',
    '1e+',
    '.5',
    '1.',
    '08',
    'inf',
    'nan',
    't',
    'f',
    '1f',
    '\\u12',
    '\\x',
  ),
  fc.integer().map(String),
  fc.double().map(String),
  text.map((s) => JSON.stringify(s)),
  text,
);

void test('token soups only ever parse or fail with CONFIG_SYNTAX', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(token, fc.constantFrom(' ', '', '\n', '\t')), { maxLength: 60 }),
      (parts) => {
        expectOnlySyntaxErrors(parts.map(([t, sep]) => t + sep).join(''));
      },
    ),
    { numRuns: 3000 },
  );
});

void test('valid configs with one character inserted, deleted or replaced only parse or fail cleanly', () => {
  fc.assert(
    fc.property(
      messageArb(MODEL_CONFIG_ROOT),
      fc.integer(),
      fc.nat(),
      fc.constantFrom('insert', 'delete', 'replace'),
      fc.constantFrom('{', '}', '"', '[', ':', '-', 'x', '0', '\\', ' ', '<', '\n'),
      (msg, seed, where, op, ch) => {
        const printed = new RandomPrinter(schema, seededRandom(seed)).message(
          msg,
          MODEL_CONFIG_ROOT,
        );
        const i = printed.length === 0 ? 0 : where % printed.length;
        const mutated =
          op === 'insert'
            ? printed.slice(0, i) + ch + printed.slice(i)
            : op === 'delete'
              ? printed.slice(0, i) + printed.slice(i + 1)
              : printed.slice(0, i) + ch + printed.slice(i + 1);
        expectOnlySyntaxErrors(mutated);
      },
    ),
    { numRuns: 1000 },
  );
});
