// The CI recipes in docs/ci/: each parses as YAML with the structure GitHub Actions needs, and the
// pull-request workflow's validate script, run as the job would run it against a git repository
// where a pull request adds an mlp version, fails the job (status 1) for a candidate with a changed
// weight and passes the same export again, writing the Markdown report to the job summary.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { REPO_ROOT } from '../helpers/paths.js';
import { CLI } from '../helpers/spawn-server.js';
import { perturbedMlp, sameMlp, servingModel, writeVersion } from '../helpers/validate-models.js';

const run = promisify(execFile);
const CI = path.join(REPO_ROOT, 'docs', 'ci');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
}
interface Workflow {
  readonly name: string;
  readonly on: Record<string, { paths?: string[] } | null>;
  readonly jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
}

function workflow(file: string): Workflow {
  const doc = yaml.load(readFileSync(path.join(CI, file), 'utf8')) as Workflow;
  assert.equal(typeof doc.name, 'string');
  for (const job of Object.values(doc.jobs)) {
    assert.equal(typeof job['runs-on'], 'string');
    assert.ok(job.steps.length > 0);
    for (const s of job.steps)
      assert.ok((s.uses === undefined) !== (s.run === undefined), JSON.stringify(s));
  }
  return doc;
}

function stepRunning(doc: Workflow, text: string): Step {
  const step = Object.values(doc.jobs)
    .flatMap((j) => j.steps)
    .find((s) => s.run?.includes(text) === true);
  assert.ok(step !== undefined, `no step runs ${text}`);
  return step;
}

function upload(doc: Workflow): Step {
  const step = Object.values(doc.jobs)
    .flatMap((j) => j.steps)
    .find((s) => s.uses?.startsWith('actions/upload-artifact@') === true);
  assert.ok(step !== undefined, 'no upload step');
  assert.equal(step.if, 'always()', 'reports are uploaded whatever the verdict');
  return step;
}

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });

/** A git repository whose main has mlp version 1; the "pull request" commit adds `candidate` as 2. */
async function pullRequest(candidate: Uint8Array): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-ci-'));
  dirs.push(dir);
  await servingModel(path.join(dir, 'model_repository'), 'mlp');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'serving');
  await git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  await writeVersion(path.join(dir, 'model_repository'), 'mlp', 2, candidate);
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-qm', 'candidate');
  return dir;
}

/** The validate step's script as the runner would run it: expressions filled, this build's CLI. */
async function runScript(script: string, cwd: string): Promise<{ code: number; summary: string }> {
  const text = script
    .replaceAll('${{ github.base_ref }}', 'main')
    .replaceAll(
      'node dist/src/cli/main.js',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`,
    );
  const summary = path.join(cwd, 'summary.md');
  try {
    await run('bash', ['-e', '-c', text], {
      cwd,
      env: { ...process.env, GITHUB_STEP_SUMMARY: summary },
    });
    return { code: 0, summary: await readFile(summary, 'utf8') };
  } catch (e) {
    return {
      code: (e as { code: number }).code,
      summary: await readFile(summary, 'utf8').catch(() => ''),
    };
  }
}

void describe('docs/ci recipes', () => {
  const pr = workflow('github-actions-validate.yml');

  void it('the pull-request workflow runs on model changes and uploads the reports', () => {
    assert.deepEqual(pr.on.pull_request?.paths, ['model_repository/**']);
    const step = stepRunning(pr, 'validate --model-repository');
    assert.match(step.run ?? '', /--report /);
    assert.match(String(upload(pr).with?.path), /validate-\*/);
  });

  void it('its script fails the job for a changed weight and passes the same export', async () => {
    const script = stepRunning(pr, 'validate --model-repository').run ?? '';
    const bad = await pullRequest(perturbedMlp());
    const failed = await runScript(script, bad);
    assert.equal(failed.code, 1, failed.summary);
    assert.match(failed.summary, /FAIL/);
    assert.match(failed.summary, /OUTPUT0/);
    assert.ok((await readdir(bad)).includes('validate-mlp-2.json'));
    const good = await pullRequest(sameMlp());
    const passed = await runScript(script, good);
    assert.equal(passed.code, 0, passed.summary);
    assert.match(passed.summary, /PASS/);
  });

  void it('the canary gate validates before it applies the canary, and uploads the report', () => {
    const gate = workflow('github-actions-canary-gate.yml');
    const steps = Object.values(gate.jobs).flatMap((j) => j.steps);
    const validate = steps.findIndex(
      (s) => s.run?.includes(' validate --model-repository') === true,
    );
    const apply = steps.findIndex((s) => s.run?.includes('inference-service-canary.yaml') === true);
    assert.ok(validate >= 0 && apply > validate, 'the canary is applied after validate');
    assert.equal(steps[apply]?.if, undefined, 'applied only when every step before passed');
    upload(gate);
    const manifest = readFileSync(
      path.join(REPO_ROOT, 'deploy', 'kubernetes', 'kserve', 'inference-service-canary.yaml'),
      'utf8',
    );
    assert.match(manifest, /canaryTrafficPercent/);
  });
});
