// `infernode validate` run as an operator runs it (a child process of the real command) against
// models exported by the project's own generators into a temporary repository: the same mlp passes;
// one weight changed by 1e-2 fails naming the output and quoting the difference; a wrong output
// shape, a renamed input or another datatype fails the signature check before anything runs; a
// candidate several times slower fails the latency threshold; the sentiment classifier with another
// vocabulary fails; usage errors exit 2 naming what was expected and what arrived.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DIST } from '../helpers/paths.js';
import { tempRepository } from '../helpers/temp-repository.js';
import {
  fp64Identity,
  PERTURBED,
  perturbedMlp,
  renamedInputMlp,
  sameMlp,
  sentimentWithLargerVocabulary,
  servingModel,
  slowerMlp,
  widerOutputMlp,
  writeVersion,
} from '../helpers/validate-models.js';

const CLI = path.join(DIST, 'src', 'cli', 'main.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Report {
  verdict: string;
  stoppedAt?: string;
  serving: { version: number };
  candidate: { version: number | null; file: string };
  samples?: { kind: string; count: number; description: string };
  signature: { problems: string[]; notes: string[] };
  agreement: {
    output: string;
    maxAbsDiff?: number;
    worst?: { serving: number; candidate: number };
  }[];
  latency: { batchSize: number; p50Ratio: number }[];
  checks: { check: string; subject: string; measured: number | string; pass: boolean }[];
  error?: string;
}

function validate(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'validate', ...args],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Quick runs for the tests that are not about latency. */
const QUICK = ['--iterations', '3', '--batch-sizes', '1', '--samples', '8'];

void describe('infernode validate', () => {
  let repo: string;
  let work: string;
  const candidate: Record<string, string> = {};
  const reportOf = async (name: string): Promise<Report> =>
    JSON.parse(await readFile(path.join(work, `${name}.json`), 'utf8')) as Report;
  const run = (name: string, args: readonly string[]): Promise<Run> =>
    validate([
      '--model-repository',
      repo,
      '--json',
      path.join(work, `${name}.json`),
      '--report',
      path.join(work, `${name}.md`),
      ...args,
    ]);

  before(async () => {
    repo = await tempRepository();
    work = await mkdtemp(path.join(os.tmpdir(), 'infernode-validate-'));
    await servingModel(repo, 'mlp');
    await servingModel(repo, 'identity_fp32');
    await servingModel(repo, 'sentiment_classifier');
    await writeVersion(repo, 'mlp', 2, sameMlp());
    const files: Record<string, Uint8Array> = {
      perturbed: perturbedMlp(),
      wider: widerOutputMlp(),
      renamed: renamedInputMlp(),
      slower: slowerMlp(),
      fp64: fp64Identity(),
      vocabulary: sentimentWithLargerVocabulary(),
    };
    for (const [name, bytes] of Object.entries(files)) {
      candidate[name] = path.join(work, `${name}.onnx`);
      await writeFile(candidate[name] as string, bytes);
    }
  });
  after(async () => {
    await rm(repo, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  void it('passes the same mlp exported again, a version of the repository', async () => {
    const r = await run('same', ['--model', 'mlp', '--candidate', '2', ...QUICK]);
    assert.equal(r.code, 0, r.stderr);
    const report = await reportOf('same');
    assert.equal(report.verdict, 'pass');
    // The version policy (latest 1) serves version 1 once the candidate's directory is left out.
    assert.equal(report.serving.version, 1);
    assert.equal(report.candidate.version, 2);
    assert.equal(report.samples?.kind, 'generated');
    assert.equal(report.agreement[0]?.maxAbsDiff, 0);
    assert.ok(report.checks.every((c) => c.pass));
    const md = await readFile(path.join(work, 'same.md'), 'utf8');
    assert.match(md, /\*\*PASS\*\*/);
    assert.match(md, /generated inputs prove less than real ones/);
    assert.match(r.stderr, /mlp: PASS/);
  });

  void it('fails one weight changed by 1e-2, naming the output and quoting the difference', async () => {
    const r = await run('perturbed', [
      '--model',
      'mlp',
      '--candidate',
      candidate.perturbed as string,
      ...QUICK,
    ]);
    assert.equal(r.code, 1, r.stderr);
    const report = await reportOf('perturbed');
    assert.equal(report.verdict, 'fail');
    const failed = report.checks.filter((c) => !c.pass);
    const abs = failed.find((c) => c.check === 'max-abs-diff');
    assert.equal(abs?.subject, 'OUTPUT0');
    // Output 3 moves by 1e-2 times the hidden unit's activation: at most 1e-2 per unit of it.
    const measured = abs?.measured as number;
    assert.ok(measured > 1e-4 && measured < 0.1, `max abs diff ${measured}`);
    const worst = report.agreement[0]?.worst;
    assert.ok(
      worst !== undefined &&
        Math.abs(worst.candidate - worst.serving - measured) < 1e-6 * Math.max(1, measured) + 1e-7,
    );
    const md = await readFile(path.join(work, 'perturbed.md'), 'utf8');
    assert.match(md, /## Failed checks/);
    const quoted = String(Number(measured.toPrecision(4))).replace('.', '\\.');
    assert.match(md, new RegExp(`\\| max-abs-diff \\| OUTPUT0 \\| ${quoted} \\| <= 0\\.0001 \\|`));
    assert.equal(PERTURBED.delta, 1e-2);
  });

  for (const [name, model, expected] of [
    [
      'wider',
      'mlp',
      /output "OUTPUT0" has shape \[-1,10\] in the serving version, \[-1,12\] in the candidate/,
    ],
    [
      'renamed',
      'mlp',
      /input "INPUT0" \(float32 \[-1,784\]\) is missing from the candidate, which has inputs "INPUT"/,
    ],
    [
      'fp64',
      'identity_fp32',
      /configuration expects datatype TYPE_FP32 for input 'INPUT0', model provides ONNX type float64/,
    ],
  ] as const) {
    void it(`fails the signature check before anything runs: ${name}`, async () => {
      const r = await run(name, [
        '--model',
        model,
        '--candidate',
        candidate[name] as string,
        ...QUICK,
      ]);
      assert.equal(r.code, 1, r.stderr);
      const report = await reportOf(name);
      assert.equal(report.stoppedAt, 'signature');
      assert.ok(
        report.signature.problems.some((p) => expected.test(p)),
        report.signature.problems.join('\n'),
      );
      assert.equal(report.samples, undefined);
      assert.deepEqual(report.agreement, []);
      assert.deepEqual(report.latency, []);
      assert.match(
        await readFile(path.join(work, `${name}.md`), 'utf8'),
        /Stopped at the \*\*signature\*\* stage/,
      );
    });
  }

  void it('fails a candidate several times slower on the latency threshold, its answers agreeing', async () => {
    const r = await run('slower', [
      '--model',
      'mlp',
      '--candidate',
      candidate.slower as string,
      '--iterations',
      '20',
      '--batch-sizes',
      '1',
    ]);
    assert.equal(r.code, 1, r.stderr);
    const report = await reportOf('slower');
    const failed = report.checks.filter((c) => !c.pass);
    assert.deepEqual(
      failed.map((c) => `${c.check} ${c.subject}`),
      ['max-p50-ratio batch 1'],
    );
    assert.ok((report.latency[0]?.p50Ratio ?? 0) > 1.5, `p50 ratio ${report.latency[0]?.p50Ratio}`);
    assert.equal(report.agreement[0]?.maxAbsDiff, 0);
  });

  void it('fails the sentiment classifier re-exported with a larger vocabulary', async () => {
    const r = await run('vocabulary', [
      '--model',
      'sentiment_classifier',
      '--candidate',
      candidate.vocabulary as string,
      ...QUICK,
    ]);
    assert.equal(r.code, 1, r.stderr);
    const report = await reportOf('vocabulary');
    assert.ok(
      report.checks.some((c) => !c.pass && c.subject === 'LOGITS' && c.check === 'max-abs-diff'),
    );
  });

  void it('takes thresholds from a file, flags overriding it', async () => {
    const file = path.join(work, 'thresholds.json');
    await writeFile(
      file,
      JSON.stringify({ 'max-abs-diff': 1, 'max-rel-diff': 1, 'min-cosine': 0.5 }),
    );
    const loose = await run('loose', [
      '--model',
      'mlp',
      '--candidate',
      candidate.perturbed as string,
      '--thresholds',
      file,
      ...QUICK,
    ]);
    assert.equal(loose.code, 0, loose.stderr);
    const strict = await run('strict', [
      '--model',
      'mlp',
      '--candidate',
      candidate.perturbed as string,
      '--thresholds',
      file,
      '--max-abs-diff',
      '1e-6',
      ...QUICK,
    ]);
    assert.equal(strict.code, 1, strict.stderr);
  });

  void it('replays the model_warmup samples when the model has them', async () => {
    const config = await readFile(path.join(repo, 'mlp', 'config.pbtxt'), 'utf8');
    const warm = path.join(repo, 'mlp_warm');
    await writeVersion(repo, 'mlp_warm', 1, sameMlp());
    await writeFile(
      path.join(warm, 'config.pbtxt'),
      `${config.replace('name: "mlp"', 'name: "mlp_warm"')}\nmodel_warmup [ { name: "random" batch_size: 4 inputs { key: "INPUT0" value: { data_type: TYPE_FP32 dims: [ 784 ] random_data: true } } } ]\n`,
    );
    const r = await run('warm', [
      '--model',
      'mlp_warm',
      '--candidate',
      candidate.perturbed as string,
      ...QUICK,
    ]);
    assert.equal(r.code, 1, r.stderr);
    const report = await reportOf('warm');
    assert.equal(report.samples?.kind, 'warmup');
    assert.match(report.samples?.description ?? '', /model_warmup sample\(s\) \(warmup "random"\)/);
  });

  void it('replays a directory of inference requests, checked against the config', async () => {
    const requests = path.join(work, 'requests');
    const bad = path.join(work, 'bad-requests');
    await mkdir(requests);
    await mkdir(bad);
    for (let i = 0; i < 3; i++) {
      const data = Array.from({ length: 2 * 784 }, (_, k) => Math.sin(i * 1000 + k));
      const body = { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [2, 784], data }] };
      await writeFile(path.join(requests, `request-${i}.json`), JSON.stringify(body));
    }
    const body = {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 784], data: new Array(784).fill(0) },
      ],
    };
    await writeFile(path.join(bad, 'int32.json'), JSON.stringify(body));

    const r = await run('requests', [
      '--model',
      'mlp',
      '--candidate',
      candidate.perturbed as string,
      '--requests',
      requests,
      ...QUICK,
    ]);
    assert.equal(r.code, 1, r.stderr);
    const report = await reportOf('requests');
    assert.equal(report.samples?.kind, 'requests');
    assert.equal(report.samples?.count, 3);
    assert.equal((report.samples as { rows?: number } | undefined)?.rows, 6);
    assert.match(report.samples?.description ?? '', /3 inference request\(s\) from /);
    assert.ok(
      report.checks.some((c) => !c.pass && c.check === 'max-abs-diff' && c.subject === 'OUTPUT0'),
    );

    const refused = await run('bad-requests', [
      '--model',
      'mlp',
      '--candidate',
      '2',
      '--requests',
      bad,
      ...QUICK,
    ]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /int32\.json: input "INPUT0": expected datatype FP32, got "INT32"/,
    );
  });

  void it('exits 2 on usage errors, naming what was expected and what arrived', async () => {
    const cases: [readonly string[], RegExp][] = [
      [
        ['--model-repository', repo, '--model', 'mlp', '--candidate', '2', '--bogus', '1'],
        /unknown argument "--bogus"/,
      ],
      [['--model-repository', repo, '--model', 'mlp'], /--candidate is required/],
      [
        ['--model-repository', repo, '--model', 'nope', '--candidate', '2'],
        /expected a model directory named "nope" in .*, which holds identity_fp32, mlp/,
      ],
      [
        ['--model-repository', repo, '--model', 'mlp', '--candidate', '9'],
        /expected a version directory of "mlp" or an \.onnx file, got "9"; the model has versions 1, 2/,
      ],
      [
        ['--model-repository', repo, '--model', 'mlp', '--candidate', '2', '--max-abs-diff', 'x'],
        /--max-abs-diff expects a non-negative number, got "x"/,
      ],
    ];
    // Each ends before a model is opened: run side by side.
    const runs = await Promise.all(cases.map(([args]) => validate(args)));
    runs.forEach((r, i) => {
      const [args, expected] = cases[i] as [readonly string[], RegExp];
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, expected);
    });
  });
});
