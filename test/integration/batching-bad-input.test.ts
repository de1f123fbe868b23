// One client's bad JSON value next to good requests on a batching model: the good requests, which
// share batches with each other while the bad one would have joined them, all get their own
// answers; only the bad one is refused, with its own message.

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../helpers/test-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';

const GOOD = 6;

void describe('a bad JSON value in a dynamic batch', () => {
  let repo: string;
  let t: TestServer;
  before(async () => {
    repo = await tempRepository();
    // simple with batching and a 200 ms queue delay: requests sent together meet in one batch.
    const dir = await copyModel(repo, 'simple');
    const file = path.join(dir, 'config.pbtxt');
    await writeFile(
      file,
      `${await readFile(file, 'utf8')}\ndynamic_batching { max_queue_delay_microseconds: 200000 }\n`,
    );
    t = await startTestServer({ modelRepositories: [repo] });
  });
  after(async () => {
    await t.close();
    await rm(repo, { recursive: true, force: true });
  });

  const infer = (input0: unknown[], input1: unknown[]) =>
    postJson(`${t.base}/v2/models/simple/infer`, {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], data: input0 },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], data: input1 },
      ],
    });

  for (const [what, bad, message] of [
    [
      'a string',
      'x',
      'input INPUT1: element 3 is the string "x", expected an integer in [-2147483648, 2147483647] for INT32',
    ],
    [
      'a value out of range',
      2 ** 31,
      'input INPUT1: element 3 is 2147483648, expected an integer in [-2147483648, 2147483647] for INT32',
    ],
  ] as const) {
    void it(`${what}: the good requests get their own answers, the bad one a 400`, async () => {
      const a = (c: number) => Array.from({ length: 16 }, (_, i) => c * 100 + i);
      const b = (c: number) => Array.from({ length: 16 }, (_, i) => c - i);
      const badInput1: unknown[] = b(99);
      badInput1[3] = bad;
      const before = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
      const [badRes, ...goodRes] = await Promise.all([
        infer(a(99), badInput1),
        ...Array.from({ length: GOOD }, (_, c) => infer(a(c), b(c))),
      ]);
      assert.equal(badRes?.status, 400, JSON.stringify(badRes?.json));
      assert.equal(badRes?.json.error, message);
      goodRes.forEach((res, c) => {
        assert.equal(res.status, 200, `client ${c}: ${JSON.stringify(res.json)}`);
        const out0 = res.json.outputs.find((o: any) => o.name === 'OUTPUT0');
        assert.deepEqual(
          out0.data,
          a(c).map((x, i) => x + (b(c)[i] as number)),
        );
      });
      const s = (await (await fetch(`${t.base}/v2/models/simple/stats`)).json()) as any;
      const [now, was] = [s.model_stats[0], before.model_stats[0]];
      assert.equal(now.inference_count - was.inference_count, GOOD);
      assert.ok(
        now.execution_count - was.execution_count < GOOD,
        'the good requests shared batches',
      );
    });
  }
});
