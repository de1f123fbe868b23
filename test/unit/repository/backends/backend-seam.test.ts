// The backend seam for config: a backend registered only here (a folder's worth of rules and one
// registry line, no change to src/config/) gets its config rules run by the real config pipeline
// over a real model directory: its backend name accepted, its model file and instance defaults, its
// autocomplete and its own rules called at their points and their refusals passed through; and the
// server's registry, which does not list it, refuses it naming what it serves.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { BackendConfigRules } from '../../../../src/config/backend-rules.js';
import { loadModelConfig } from '../../../../src/config/load-model-config.js';
import type { ModelConfig } from '../../../../src/config/model-config.js';
import { fail, InferenceServerError } from '../../../../src/errors.js';
import { NO_THREAD_PARAMETERS, type Backend } from '../../../../src/repository/backends/backend.js';
import { ENSEMBLE } from '../../../../src/repository/backends/ensemble/ensemble-backend.js';
import { JAVASCRIPT } from '../../../../src/repository/backends/javascript/javascript-backend.js';
import { ONNXRUNTIME } from '../../../../src/repository/backends/onnxruntime/onnxruntime-backend.js';
import {
  backendConfigRules,
  createBackendRegistry,
} from '../../../../src/repository/backends/registry.js';
import { neverRead, tempRepository } from '../../config/model-dir-helpers.js';

const repo = tempRepository('infernode-backend-seam-');

/** What the toy backend's rules were called with, in order. */
const calls: string[] = [];

const TOY_RULES: BackendConfigRules = {
  backend: 'toy',
  platforms: [''],
  serves: 'toy models (backend "toy")',
  modelFilenames: ['model.toy', 'model.toy2'],
  mayBeDecoupled: true,
  instances: { gpu: false, defaultCpuCount: 3 },
  checkConfig: (config: ModelConfig) => {
    calls.push(`config ${config.name}`);
    if (config.parameters['refuse'] !== undefined) {
      throw fail('CONFIG_INVALID', `model '${config.name}': the toy backend refuses this`);
    }
  },
  // Fills in a missing output from "the model file" (here: its text names the output).
  autocomplete: async (raw, ctx) => {
    if ((raw.output?.length ?? 0) > 0) return undefined;
    const file = await ctx.modelFile(raw.default_model_filename ?? '');
    calls.push(`autocomplete ${path.basename(file ?? '?')}`);
    const name = file === undefined ? '?' : (await readFile(file, 'utf8')).trim();
    return {
      config: { ...raw, output: [{ name, data_type: 'TYPE_FP32', dims: [2] }] },
      warnings: [`autofilled output ${name}`],
      check: (config) => calls.push(`check ${config.output.map((o) => o.name).join(',')}`),
    };
  },
  checkTensor: (config, what, t) => {
    calls.push(`tensor ${t.name}`);
    if (t.dims.length > 1) throw fail('UNSUPPORTED', `${what} of ${config.name}: toys are flat`);
  },
};

const TOY: Backend = {
  name: 'toy',
  config: TOY_RULES,
  hasModelFile: true,
  ortSessions: false,
  bytesMayHoldNul: true,
  dependencies: () => [],
  bind: () => ({
    start: () => Promise.reject(new Error('a toy never starts')),
    threadParameters: NO_THREAD_PARAMETERS,
    warnings: [],
  }),
};

const registry = createBackendRegistry([ONNXRUNTIME, JAVASCRIPT, ENSEMBLE, TOY]);

const IO = `
input [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]
`;

async function refusal(promise: Promise<unknown>): Promise<InferenceServerError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof InferenceServerError, String(e));
    return e;
  }
  assert.fail('expected the config pipeline to refuse the config');
}

void describe('a backend registered in a registry of its own', () => {
  void it('runs through the config pipeline with its own defaults and rules', async () => {
    const dir = await repo.model('toy_ok', {
      'config.pbtxt': `backend: "toy"\nmodel_transaction_policy { decoupled: true }\n${IO}`,
      '1/model.toy2': 'toy',
    });
    calls.length = 0;
    const { config } = await loadModelConfig(dir, {
      backends: registry.configRules,
      readModelIO: neverRead,
      availableGpus: [0],
    });
    // Its model file (the first of its names a version holds), its instance defaults (a CPU group
    // of three even with a GPU present), and decoupled allowed because its rules say so.
    assert.equal(config.default_model_filename, 'model.toy2');
    assert.deepEqual(
      config.instance_group.map((g) => [g.kind, g.count]),
      [['KIND_CPU', 3]],
    );
    assert.equal(config.model_transaction_policy.decoupled, true);
    // Its rules ran at their points: the whole config first, then each tensor.
    assert.deepEqual(calls, ['config toy_ok', 'tensor X', 'tensor Y']);
    assert.equal(registry.backendFor(config), TOY);
  });

  void it('runs its autocomplete from the model file, and its check after validation', async () => {
    const dir = await repo.model('toy_filled', {
      'config.pbtxt': `backend: "toy"\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 2 ] } ]`,
      '1/model.toy': 'FILLED\n',
    });
    calls.length = 0;
    const loaded = await loadModelConfig(dir, {
      backends: registry.configRules,
      readModelIO: neverRead,
    });
    assert.deepEqual(
      loaded.config.output.map((o) => o.name),
      ['FILLED'],
    );
    assert.ok(loaded.warnings.includes('autofilled output FILLED'));
    assert.deepEqual(calls, [
      'autocomplete model.toy',
      'config toy_filled',
      'tensor X',
      'tensor FILLED',
      'check FILLED',
    ]);
    // --disable-auto-complete-config skips it: the config then lacks its output.
    calls.length = 0;
    const plain = await loadModelConfig(dir, {
      backends: registry.configRules,
      readModelIO: neverRead,
      disableAutoComplete: true,
    });
    assert.deepEqual(plain.config.output, []);
    assert.ok(!calls.some((c) => c.startsWith('autocomplete') || c.startsWith('check')));
  });

  void it("refuses a config with its rules' own errors, code and message", async () => {
    const refused = await repo.model('toy_refused', {
      'config.pbtxt': `backend: "toy"\nparameters { key: "refuse" value { string_value: "1" } }\n${IO}`,
      '1/model.toy': 'toy',
    });
    const e = await refusal(
      loadModelConfig(refused, { backends: registry.configRules, readModelIO: neverRead }),
    );
    assert.equal(e.code, 'CONFIG_INVALID');
    assert.equal(e.message, "model 'toy_refused': the toy backend refuses this");

    const deep = await repo.model('toy_deep', {
      'config.pbtxt': `backend: "toy"\ninput [ { name: "X" data_type: TYPE_FP32 dims: [ 2, 2 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 2 ] } ]`,
      '1/model.toy': 'toy',
    });
    const e2 = await refusal(
      loadModelConfig(deep, { backends: registry.configRules, readModelIO: neverRead }),
    );
    assert.equal(e2.code, 'UNSUPPORTED');
    assert.equal(e2.message, "model input 'X' of toy_deep: toys are flat");
  });

  void it('is named among what is served, and unknown to the server without its line', async () => {
    const dir = await repo.model('toy_unknown', {
      'config.pbtxt': `backend: "toy"\n${IO}`,
      '1/model.toy': 'toy',
    });
    const e = await refusal(
      loadModelConfig(dir, { backends: backendConfigRules(), readModelIO: neverRead }),
    );
    assert.equal(e.code, 'UNSUPPORTED');
    assert.match(
      e.message,
      /^model 'toy_unknown' has backend "toy" and platform "": infernode serves ONNX models/,
    );

    const other = await repo.model('python_model', {
      'config.pbtxt': `backend: "python"\n${IO}`,
      '1/model.py': '',
    });
    const e2 = await refusal(
      loadModelConfig(other, { backends: registry.configRules, readModelIO: neverRead }),
    );
    assert.equal(
      e2.message,
      `model 'python_model' has backend "python" and platform "": infernode serves ONNX models ` +
        `(backend "onnxruntime", platform "onnxruntime_onnx"), JavaScript models (backend ` +
        `"javascript") and toy models (backend "toy")`,
    );
  });

  void it('refuses two backends under one name, and rules registered under another name', () => {
    assert.throws(
      () => createBackendRegistry([ONNXRUNTIME, TOY, TOY]),
      /two backends are registered as "toy"/,
    );
    assert.throws(
      () => createBackendRegistry([{ ...TOY, config: { ...TOY_RULES, backend: 'other' } }]),
      /backend "toy" has the config rules of "other"/,
    );
  });
});
