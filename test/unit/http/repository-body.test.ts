// The repository endpoints' JSON bodies: defaults for empty bodies, every member Triton reads with
// its kind checked, load parameters (config, strict base64 files, unknown keys, files without a
// config), and unload_dependents — each refusal with its code and exact message; and random bodies,
// which only ever get catalogued 400s.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InferenceServerError } from '../../../src/errors.js';
import {
  decodeBase64,
  decodeIndexBody,
  decodeLoadBody,
  decodeUnloadBody,
} from '../../../src/http/repository-body.js';
import { jsonBytes, throwsCode, utf8 } from '../protocol/expect-error.js';

const EMPTY = new Uint8Array(0);
const CONFIG = JSON.stringify({ name: 'm', platform: 'onnxruntime_onnx' });
const b64 = (bytes: number[]): string => Buffer.from(bytes).toString('base64');

const load = (parameters: unknown): ReturnType<typeof decodeLoadBody> =>
  decodeLoadBody(jsonBytes({ parameters }));

void describe('decodeIndexBody', () => {
  void it('an empty body, {} and other members: not filtered', () => {
    assert.equal(decodeIndexBody(EMPTY), false);
    assert.equal(decodeIndexBody(jsonBytes({})), false);
    assert.equal(decodeIndexBody(jsonBytes({ other: 1 })), false);
  });

  void it('ready: true filters, false does not', () => {
    assert.equal(decodeIndexBody(jsonBytes({ ready: true })), true);
    assert.equal(decodeIndexBody(jsonBytes({ ready: false })), false);
  });

  void it('ready of another kind: 400 naming what arrived', () => {
    for (const [ready, got] of [
      [1, 'the number 1'],
      ['true', 'a string'],
      [null, 'null'],
      [[true], 'an array'],
    ] as const) {
      throwsCode(
        () => decodeIndexBody(jsonBytes({ ready })),
        'BAD_REQUEST',
        `Invalid value for 'ready': expected a boolean, got ${got}`,
      );
    }
  });

  void it('a body that is not a JSON object, or not JSON', () => {
    throwsCode(
      () => decodeIndexBody(jsonBytes([true])),
      'BAD_REQUEST',
      'expected the repository index body to be a JSON object, got an array',
    );
    throwsCode(() => decodeIndexBody(utf8('{"ready":')), 'BAD_JSON', /^failed to parse/);
    throwsCode(() => decodeIndexBody(utf8(' ')), 'BAD_JSON', /^failed to parse/);
  });
});

void describe('decodeLoadBody', () => {
  void it('an empty body, {} and empty parameters: no config, no files', () => {
    for (const body of [EMPTY, jsonBytes({}), jsonBytes({ parameters: {} })]) {
      const r = decodeLoadBody(body);
      assert.equal(r.config, undefined);
      assert.equal(r.files.size, 0);
    }
  });

  void it('config alone', () => {
    const r = load({ config: CONFIG });
    assert.equal(r.config, CONFIG);
    assert.equal(r.files.size, 0);
  });

  void it('files are base64-decoded and keyed by the path after file:', () => {
    const r = load({
      config: CONFIG,
      'file:1/model.onnx': b64([0, 1, 2, 250, 251]),
      'file:2/model.onnx': b64([7]),
      'file:1/empty': '',
    });
    assert.deepEqual(
      [...r.files].map(([path, bytes]) => [path, [...bytes]]),
      [
        ['1/model.onnx', [0, 1, 2, 250, 251]],
        ['2/model.onnx', [7]],
        ['1/empty', []],
      ],
    );
  });

  void it('members beside parameters are ignored, as Triton ignores them', () => {
    const r = decodeLoadBody(jsonBytes({ parameters: { config: CONFIG }, other: [1] }));
    assert.equal(r.config, CONFIG);
  });

  void it('files without config: Triton refuses them, and so does the decoder', () => {
    throwsCode(
      () => load({ 'file:1/model.onnx': b64([1]) }),
      'BAD_PARAMETER',
      "Load parameter 'config' must be specified for model file override: got 1 'file:' " +
        "parameter and no 'config'",
    );
    throwsCode(
      () => load({ 'file:1/a': b64([1]), 'file:1/b': b64([2]) }),
      'BAD_PARAMETER',
      /got 2 'file:' parameters and no 'config'$/,
    );
  });

  void it('config must be a string (the JSON text of a config), not the config object', () => {
    throwsCode(
      () => load({ config: JSON.parse(CONFIG) }),
      'BAD_PARAMETER',
      "load parameter 'config' must be a string, got an object",
    );
    throwsCode(
      () => load({ config: 5 }),
      'BAD_PARAMETER',
      "load parameter 'config' must be a string, got the number 5",
    );
  });

  void it('a file value must be a base64 string', () => {
    throwsCode(
      () => load({ config: CONFIG, 'file:1/model.onnx': [1, 2] }),
      'BAD_PARAMETER',
      "load parameter 'file:1/model.onnx' must be a base64 string, got an array",
    );
  });

  void it('invalid base64 names the key and what is wrong', () => {
    throwsCode(
      () => load({ config: CONFIG, 'file:1/model.onnx': 'AAA*' }),
      'BAD_PARAMETER',
      `load parameter 'file:1/model.onnx' must be base64, got the character "*" at offset 3`,
    );
    throwsCode(
      () => load({ config: CONFIG, 'file:1/model.onnx': 'QUJD\nREVG' }),
      'BAD_PARAMETER',
      `load parameter 'file:1/model.onnx' must be base64, got the character "\\n" at offset 4`,
    );
    throwsCode(
      () => load({ config: CONFIG, 'file:1/x': 'QUJDR' }),
      'BAD_PARAMETER',
      "load parameter 'file:1/x' must be base64, got 5 characters that do not end as base64 " +
        "does ('=' only as the last one or two of a multiple of 4)",
    );
  });

  void it('unknown parameters are refused, as Triton refuses them', () => {
    throwsCode(
      () => load({ config: CONFIG, version: '2' }),
      'BAD_PARAMETER',
      "unrecognized load parameter 'version': expected 'config' or 'file:<version>/<name>'",
    );
    // JSON.parse makes __proto__ an ordinary own key: refused like any other.
    throwsCode(
      () => decodeLoadBody(utf8('{"parameters":{"__proto__":"x"}}')),
      'BAD_PARAMETER',
      /^unrecognized load parameter '__proto__'/,
    );
  });

  void it('a long unknown key is cut in the message', () => {
    const key = 'k'.repeat(1000);
    throwsCode(
      () => load({ [key]: 'x' }),
      'BAD_PARAMETER',
      `unrecognized load parameter '${'k'.repeat(128)}...': expected 'config' or ` +
        "'file:<version>/<name>'",
    );
  });

  void it('parameters and the body must be objects', () => {
    throwsCode(
      () => load('config'),
      'BAD_PARAMETER',
      "load 'parameters' must be an object, got a string",
    );
    throwsCode(
      () => decodeLoadBody(jsonBytes('x')),
      'BAD_REQUEST',
      'expected the load body to be a JSON object, got a string',
    );
    throwsCode(() => decodeLoadBody(utf8('{')), 'BAD_JSON', /^failed to parse/);
  });
});

void describe('decodeBase64', () => {
  void it('accepts padded and unpadded base64, and round-trips every length', () => {
    for (let n = 0; n < 12; n++) {
      const bytes = Array.from({ length: n }, (_, i) => (i * 97 + 13) & 0xff);
      const text = b64(bytes);
      assert.deepEqual([...decodeBase64(text, 'file:x')], bytes, text);
      assert.deepEqual([...decodeBase64(text.replace(/=+$/, ''), 'file:x')], bytes, text);
    }
  });

  void it('refuses misplaced or excess padding, and a length that is no whole byte', () => {
    for (const text of ['A', 'AAAAA', 'QQ=', 'QQ===', 'Q===', '=QQQ', 'QQ=Q', 'QUJD=']) {
      throwsCode(() => decodeBase64(text, 'file:x'), 'BAD_PARAMETER', /must be base64/);
    }
  });

  void it('refuses the URL-safe alphabet and whitespace', () => {
    for (const text of ['ab-_', 'ab c', 'abc\t']) {
      throwsCode(() => decodeBase64(text, 'file:x'), 'BAD_PARAMETER', /got the character/);
    }
  });
});

void describe('decodeUnloadBody', () => {
  void it('an empty body and no parameter: dependents stay', () => {
    assert.deepEqual(decodeUnloadBody(EMPTY), { unloadDependents: false });
    assert.deepEqual(decodeUnloadBody(jsonBytes({ parameters: {} })), {
      unloadDependents: false,
    });
  });

  void it('unload_dependents true and false', () => {
    for (const v of [true, false]) {
      assert.deepEqual(decodeUnloadBody(jsonBytes({ parameters: { unload_dependents: v } })), {
        unloadDependents: v,
      });
    }
  });

  void it('other parameters are ignored, as Triton ignores them', () => {
    assert.deepEqual(
      decodeUnloadBody(jsonBytes({ parameters: { unload_dependents: true, other: [1] } })),
      { unloadDependents: true },
    );
  });

  void it('unload_dependents of another kind, and parameters not an object', () => {
    throwsCode(
      () => decodeUnloadBody(jsonBytes({ parameters: { unload_dependents: 'true' } })),
      'BAD_PARAMETER',
      "unload parameter 'unload_dependents' must be a boolean, got a string",
    );
    throwsCode(
      () => decodeUnloadBody(jsonBytes({ parameters: [] })),
      'BAD_PARAMETER',
      "unload 'parameters' must be an object, got an array",
    );
    throwsCode(
      () => decodeUnloadBody(jsonBytes(null)),
      'BAD_REQUEST',
      'expected the unload body to be a JSON object, got null',
    );
  });
});

void describe('repository bodies: hostile input', () => {
  /** Runs `decode`; anything it throws must be a catalogued 400. */
  const onlyClientErrors = (decode: () => unknown): void => {
    try {
      decode();
    } catch (e) {
      assert.ok(e instanceof InferenceServerError, `non-catalogued throw: ${String(e)}`);
      assert.equal(e.status, 400, e.message);
    }
  };
  const decoders = [decodeIndexBody, decodeLoadBody, decodeUnloadBody];

  void it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        for (const decode of decoders) onlyClientErrors(() => decode(bytes));
      }),
    );
  });

  void it('random JSON documents and parameter maps', () => {
    const key = fc.oneof(
      fc.constantFrom('config', 'ready', 'unload_dependents', '__proto__', 'file:', 'file:1/m'),
      fc.string(),
    );
    const value = fc.oneof(fc.base64String(), fc.jsonValue());
    const doc = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(key, value).map((parameters) => ({ parameters })),
      fc.dictionary(key, value),
    );
    fc.assert(
      fc.property(doc, (d) => {
        for (const decode of decoders) onlyClientErrors(() => decode(jsonBytes(d)));
      }),
    );
  });
});
