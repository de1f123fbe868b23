// The text-format parser on its own: nesting bounds (with a recursive schema, which ModelConfig is
// not), positions, byte input, and the schema compiler.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODEL_CONFIG_SCHEMA } from '../../../src/config/generated/model-config-schema.js';
import { parseModelConfig } from '../../../src/config/parse-model-config.js';
import {
  DEFAULT_MAX_DEPTH,
  parseTextProto,
  parseTextProtoBytes,
} from '../../../src/config/pbtxt/parser.js';
import { compileSchema, type ProtoSchema } from '../../../src/config/pbtxt/schema.js';
import { firstInvalidUtf8 } from '../../../src/config/pbtxt/utf8.js';
import { InferenceServerError } from '../../../src/errors.js';

/** A self-recursive message, so nesting depth is limited only by the parser. */
const TREE: ProtoSchema = {
  enums: {},
  messages: {
    Node: [
      { name: 'child', number: 1, label: 'optional', type: { kind: 'message', name: 'Node' } },
      { name: 'kids', number: 2, label: 'repeated', type: { kind: 'message', name: 'Node' } },
      { name: 'v', number: 3, label: 'optional', type: { kind: 'scalar', name: 'int32' } },
      {
        name: 'tags',
        number: 4,
        label: 'map',
        key: 'bool',
        type: { kind: 'scalar', name: 'string' },
      },
      {
        name: 'ids',
        number: 5,
        label: 'map',
        key: 'int64',
        type: { kind: 'message', name: 'Node' },
      },
    ],
  },
};

const nested = (depth: number): string => `${'child { '.repeat(depth)}v: 1${' }'.repeat(depth)}`;

function syntaxMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, `threw ${String(e)}`);
    assert.equal(e.code, 'CONFIG_SYNTAX');
    return e.message;
  }
  assert.fail('expected a CONFIG_SYNTAX error');
}

void test('nesting up to the limit parses and one level more is an error at the opening brace', () => {
  const ok = parseTextProto(nested(DEFAULT_MAX_DEPTH), TREE, 'Node', { file: 't' });
  let node: unknown = ok;
  for (let i = 0; i < DEFAULT_MAX_DEPTH; i++) node = (node as { child: unknown }).child;
  assert.deepEqual(node, { v: 1 });

  const text = nested(DEFAULT_MAX_DEPTH + 1);
  const col = 'child { '.length * DEFAULT_MAX_DEPTH + 'child '.length + 1;
  assert.equal(
    syntaxMessage(() => parseTextProto(text, TREE, 'Node', { file: 't' })),
    `t:1:${col}: messages are nested deeper than 64 levels`,
  );
});

void test('maxDepth is configurable and list nesting counts like field nesting', () => {
  assert.equal(
    syntaxMessage(() =>
      parseTextProto('kids [ { kids [ { } ] } ]', TREE, 'Node', { file: 'f', maxDepth: 1 }),
    ),
    'f:1:17: messages are nested deeper than 1 levels',
  );
  assert.deepEqual(
    parseTextProto('kids [ { kids [ ] } ]', TREE, 'Node', { file: 'f', maxDepth: 1 }),
    {
      kids: [{ kids: [] }],
    },
  );
});

void test('a hostile nesting far beyond the limit fails cleanly instead of overflowing the stack', () => {
  const text = 'child {'.repeat(200_000);
  assert.match(
    syntaxMessage(() => parseTextProto(text, TREE, 'Node', { file: 'deep' })),
    /^deep:1:\d+: messages are nested deeper than 64 levels$/,
  );
});

void test('map keys of bool and int64 type become their decimal text', () => {
  const parsed = parseTextProto(
    'tags { key: true value: "yes" } tags { key: f value: "no" } ids { key: -7 value { v: 2 } } ids { }',
    TREE,
    'Node',
    { file: 'm' },
  );
  assert.deepEqual(parsed, {
    tags: { true: 'yes', false: 'no' },
    ids: { '-7': { v: 2 }, '0': {} },
  });
});

void test('positions count lines by \\n and columns in UTF-16 units, tabs as one', () => {
  assert.equal(
    syntaxMessage(() => parseModelConfig('name: "é😀"\r\n\tbogus: 1', 'p')),
    'p:2:2: unknown field "bogus" in ModelConfig',
  );
  assert.equal(
    syntaxMessage(() => parseModelConfig('name: "😀" x', 'p')),
    'p:1:12: unknown field "x" in ModelConfig',
  );
});

void test('a UTF-8 byte-order mark is skipped; positions then start after it', () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('name: "bom"')]);
  assert.deepEqual(parseModelConfig(bytes, 'b'), { name: 'bom' });
  assert.equal(
    syntaxMessage(() => parseModelConfig('\ufeffzz: 1', 'b')),
    'b:1:1: unknown field "zz" in ModelConfig',
  );
});

void test('string and byte input give the same result', () => {
  const text = 'name: "same" input [ { name: "a" data_type: TYPE_FP32 dims: [ 1 ] } ]';
  assert.deepEqual(parseModelConfig(Buffer.from(text), 'x'), parseModelConfig(text, 'x'));
  assert.deepEqual(
    parseTextProtoBytes(Buffer.from('v: 3'), TREE, 'Node', { file: 'x' }),
    parseTextProto('v: 3', TREE, 'Node', { file: 'x' }),
  );
});

void test('escaped bytes that are not UTF-8 are rejected for string fields', () => {
  assert.equal(
    syntaxMessage(() => parseModelConfig('name: "\\xff"', 's')),
    's:1:7: field "name" (string): the string is not valid UTF-8',
  );
  // Escapes that spell valid UTF-8 byte by byte are fine.
  assert.deepEqual(parseModelConfig('name: "\\xc3\\xa9"', 's'), { name: 'é' });
});

void test('firstInvalidUtf8 finds stray, truncated, overlong and surrogate sequences', () => {
  const at = (...b: number[]): number => firstInvalidUtf8(new Uint8Array(b));
  assert.equal(at(0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80), -1);
  assert.equal(at(0x61, 0x80), 1); // stray continuation
  assert.equal(at(0x61, 0xe2, 0x82), 1); // truncated
  assert.equal(at(0xc0, 0xaf), 0); // overlong '/'
  assert.equal(at(0xe0, 0x80, 0xaf), 0); // overlong
  assert.equal(at(0xed, 0xa0, 0x80), 0); // surrogate U+D800
  assert.equal(at(0xf4, 0x90, 0x80, 0x80), 0); // above U+10FFFF
  assert.equal(at(0xf5), 0);
});

void test('the compiled schema knows every ModelConfig field and enum used in the golden example', () => {
  const s = compileSchema(MODEL_CONFIG_SCHEMA);
  assert.equal(s, compileSchema(MODEL_CONFIG_SCHEMA), 'compiled once per schema object');
  const mc = s.fields.get('ModelConfig');
  assert.ok(mc !== undefined);
  assert.equal(mc.size, 25);
  assert.equal(mc.get('dynamic_batching')?.oneof, 'scheduling_choice');
  assert.equal(mc.get('parameters')?.label, 'map');
  assert.equal(s.enums.get('DataType')?.byNumber.get(13), 'TYPE_STRING');
});
