// The model-management flags as Triton spells them: --model-control-mode, --load-model and
// --repository-poll-secs, parsed into frozen options, with clear errors for bad values.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';

void describe('--model-control-mode and friends', () => {
  void it('defaults to none, no start-up list, 15 s polls', () => {
    const { options, warnings } = parseArgs([REPO]);
    assert.equal(options.modelControlMode, 'none');
    assert.deepEqual(options.loadModels, []);
    assert.equal(options.repositoryPollSecs, 15);
    assert.deepEqual(warnings, []);
  });

  void it('takes explicit with repeated --load-model, in order', () => {
    const { options, warnings } = parseArgs([
      REPO,
      '--model-control-mode=explicit',
      '--load-model=simple',
      '--load-model',
      'mlp',
    ]);
    assert.equal(options.modelControlMode, 'explicit');
    assert.deepEqual(options.loadModels, ['simple', 'mlp']);
    assert.ok(Object.isFrozen(options.loadModels));
    assert.deepEqual(warnings, []);
  });

  void it('takes --load-model=* alone', () => {
    const { options } = parseArgs([REPO, '--model-control-mode=explicit', '--load-model=*']);
    assert.deepEqual(options.loadModels, ['*']);
    assert.throws(
      () => parseArgs([REPO, '--model-control-mode=explicit', '--load-model=*', '--load-model=a']),
      /--load-model=\* loads every model and must be the only --load-model/,
    );
  });

  void it('takes poll with --repository-poll-secs', () => {
    const { options } = parseArgs([REPO, '--model-control-mode=poll', '--repository-poll-secs=2']);
    assert.equal(options.modelControlMode, 'poll');
    assert.equal(options.repositoryPollSecs, 2);
  });

  void it('refuses an unknown mode, naming the three', () => {
    assert.throws(
      () => parseArgs([REPO, '--model-control-mode=sometimes']),
      /--model-control-mode: expected none, explicit or poll, got 'sometimes'/,
    );
  });

  void it('refuses a --load-model that is not a model name', () => {
    for (const bad of ['../etc', 'a/b', '..', '']) {
      assert.throws(
        () => parseArgs([REPO, '--model-control-mode=explicit', `--load-model=${bad}`]),
        /--load-model: '.*' is not a model name/,
        bad,
      );
    }
  });

  void it('refuses poll intervals of 0 or more than a day', () => {
    assert.throws(
      () => parseArgs([REPO, '--model-control-mode=poll', '--repository-poll-secs=0']),
      /--repository-poll-secs: expected an integer >= 1, got 0/,
    );
    assert.throws(
      () => parseArgs([REPO, '--model-control-mode=poll', '--repository-poll-secs=86401']),
      /--repository-poll-secs: expected an integer between 0 and 86400/,
    );
  });

  void it('warns about flags the mode ignores', () => {
    assert.deepEqual(parseArgs([REPO, '--load-model=simple']).warnings, [
      '--load-model is ignored with --model-control-mode=none: every model loads at start',
    ]);
    assert.deepEqual(
      parseArgs([REPO, '--model-control-mode=explicit', '--repository-poll-secs=3']).warnings,
      ['--repository-poll-secs is ignored with --model-control-mode=explicit'],
    );
  });
});

void describe('--model-config-name', () => {
  void it('defaults to none, and takes a plain file name', () => {
    assert.equal(parseArgs([REPO]).options.modelConfigName, '');
    assert.equal(parseArgs([REPO, '--model-config-name=webgpu']).options.modelConfigName, 'webgpu');
  });

  void it('refuses a path, naming what it expects and what arrived', () => {
    for (const bad of ['../webgpu', 'a/b', '..', 'with space']) {
      assert.throws(
        () => parseArgs([REPO, `--model-config-name=${bad}`]),
        (e: unknown) =>
          e instanceof Error &&
          e.message.startsWith('--model-config-name: expected a plain file name') &&
          e.message.includes(`got '${bad}'`),
      );
    }
  });
});
