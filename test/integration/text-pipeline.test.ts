// The bundled text pipeline (`sentiment`, an ensemble of a JavaScript WordPiece tokenizer, a
// generated ONNX classifier and a JavaScript postprocess) on a real server: its answers equal
// running the three steps by hand, for single requests and for concurrent ones of different
// lengths that the steps batch together; and the tokenizer itself, loaded as the server loads it.

import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { MODEL_REPOSITORY } from '../helpers/paths.js';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';

const TEXTS = [
  'I love this movie, it was great!',
  'The food was awful and the service was slow.',
  'We went to the place on Tuesday.',
  'Not bad at all — really enjoyable, beautifully filmed.',
  '日本語のテキスト',
];

interface Output {
  name: string;
  datatype: string;
  shape: number[];
  data: unknown[];
}

void describe('the sentiment text pipeline', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      modelRepositories: [MODEL_REPOSITORY],
      modelControlMode: 'explicit',
      loadModels: ['sentiment'],
    });
  });
  after(async () => {
    await t?.close();
  });

  const infer = async (model: string, inputs: unknown[]): Promise<Map<string, Output>> => {
    const r = await postJson(`${t.base}/v2/models/${model}/infer`, { inputs });
    assert.equal(r.status, 200, `${model}: ${JSON.stringify(r.json)}`);
    return new Map((r.json.outputs as Output[]).map((o) => [o.name, o]));
  };
  const text = (s: string) => [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 1], data: [s] }];

  /** The three steps, called one by one by the client. */
  const byHand = async (s: string): Promise<Map<string, Output>> => {
    const ids = (await infer('sentiment_tokenizer', text(s))).get('INPUT_IDS') as Output;
    const logits = (await infer('sentiment_classifier', [{ ...ids, name: 'INPUT_IDS' }])).get(
      'LOGITS',
    ) as Output;
    return infer('sentiment_postprocess', [{ ...logits, name: 'LOGITS' }]);
  };

  void it('answers what the three steps answer one by one', async () => {
    for (const s of TEXTS) {
      const ensemble = await infer('sentiment', text(s));
      const steps = await byHand(s);
      for (const name of ['LABEL', 'SCORE', 'PROBABILITIES']) {
        assert.deepEqual(ensemble.get(name), steps.get(name), `${s}: ${name}`);
      }
    }
    const label = async (s: string) => (await infer('sentiment', text(s))).get('LABEL')?.data[0];
    assert.equal(await label(TEXTS[0] as string), 'positive');
    assert.equal(await label(TEXTS[1] as string), 'negative');
    assert.equal(await label(TEXTS[2] as string), 'neutral');
  });

  void it('gives concurrent texts of different lengths each their own answer', async () => {
    const want = await Promise.all(TEXTS.map((s) => byHand(s)));
    const stats = async (m: string) =>
      (
        (await (await fetch(`${t.base}/v2/models/${m}/stats`)).json()) as {
          model_stats: { inference_count: number; execution_count: number }[];
        }
      ).model_stats[0] as { inference_count: number; execution_count: number };
    const before = await stats('sentiment_tokenizer');
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        infer('sentiment', text(TEXTS[i % TEXTS.length] as string)),
      ),
    );
    got.forEach((g, i) => {
      const expected = want[i % TEXTS.length] as Map<string, Output>;
      assert.deepEqual(g.get('LABEL'), expected.get('LABEL'), `#${i}`);
      // A batch of several rows may round the last bit differently from a batch of one (the GEMM
      // takes another path): equal within float precision, not bit for bit.
      const p = g.get('PROBABILITIES')?.data as number[];
      const q = expected.get('PROBABILITIES')?.data as number[];
      p.forEach((v, k) => assert.ok(Math.abs(v - (q[k] as number)) < 1e-6, `#${i}[${k}]`));
    });
    const after = await stats('sentiment_tokenizer');
    assert.equal(after.inference_count - before.inference_count, 40);
    assert.ok(
      after.execution_count - before.execution_count < 40,
      'the tokenizer took several texts per execute() call',
    );
  });

  void it('tokenizes with WordPiece, as loaded from its version directory', async () => {
    const dir = path.join(MODEL_REPOSITORY, 'sentiment_tokenizer');
    const tokenizer = (await import(pathToFileURL(path.join(dir, '1', 'model.mjs')).href)) as {
      initialize(args: unknown): void;
      tokenize(text: string): number[];
    };
    tokenizer.initialize({ model_repository: dir, model_config: { parameters: {} } });
    const vocab = (await import('node:fs'))
      .readFileSync(path.join(dir, 'vocab.txt'), 'utf8')
      .split('\n');
    const pieces = (s: string) => tokenizer.tokenize(s).map((id) => vocab[id]);
    assert.deepEqual(pieces('Loved it!'), ['loved', 'it', '!']);
    assert.deepEqual(pieces('Played'), ['p', '##l', '##a', '##y', '##ed']);
    assert.deepEqual(pieces('Café'), ['c', '##a', '##f', '##e']);
    assert.deepEqual(pieces('日本'), ['[UNK]']);
  });
});
