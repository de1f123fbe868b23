// The JavaScript backend (`backend: "javascript"`, Triton's Python backend in JS): each instance is
// a worker (workers/js-worker.ts) that imports the model's module and calls its initialize(); its
// runs go as piscina tasks, with the instance channel (execution/javascript/) carrying BLS calls and
// decoupled responses; each start and run is bounded by the model's timeouts (config/
// javascript-parameters.ts, read once when the model is configured). It holds no ORT session, and the model has no signature of its own: its
// responses are checked against the config instead.

import { toConfigJson } from '../../../config/config-json.js';
import { JAVASCRIPT_BACKEND, JAVASCRIPT_CONFIG_RULES } from './javascript-config.js';
import type { ModelConfig } from '../../../config/model-config.js';
import type { JavascriptWorkerInit } from '../../../execution/javascript/js-worker-init.js';
import { javascriptWorkers } from '../../../execution/javascript/js-workers.js';
import { instancePlacements } from '../../../execution/instance-groups.js';
import type { InstanceGroup } from '../../../execution/run-channel.js';
import { fromConfigType } from '../../../tensor/datatypes.js';
import { NO_THREAD_PARAMETERS, type Backend } from '../backend.js';
import { startInstances, type InstanceBackendParts } from '../start-instances.js';
import { readJavascriptParameters, type JavascriptParameters } from './javascript-parameters.js';

/** The instance start's parts for a model with these settings. */
function parts(js: JavascriptParameters): InstanceBackendParts<InstanceGroup> {
  return {
    // Its workers need only the pools' names and sizes (per GPU for a GPU group, as for ORT; the
    // config pipeline admits only KIND_CPU). It holds no ORT session: the budget gave it no threads.
    groups: (c) =>
      instancePlacements(c.config).map((p) => ({ instance: p.instance, count: p.count })),
    poolOptions: (c, deps) => ({
      backend: javascriptWorkers({
        worker: javascriptWorkerInit(c.config, c.source.dir, js.decoupled),
        executeTimeoutMs: js.executeTimeoutMs,
        initializeTimeoutMs: js.initializeTimeoutMs,
        decoupled: js.decoupled,
        bls: deps.host,
      }),
    }),
    checkModelIO: () => {},
    decoupled: () => js.decoupled,
    bytesMayHoldNul: JAVASCRIPT.bytesMayHoldNul,
  };
}

export const JAVASCRIPT: Backend = Object.freeze<Backend>({
  name: JAVASCRIPT_BACKEND,
  config: JAVASCRIPT_CONFIG_RULES,
  hasModelFile: true,
  dependencies: () => [],
  ortSessions: false,
  // The model gets each element's bytes as sent.
  bytesMayHoldNul: true,
  // Its two timeouts; every other parameter is the model's own (no ORT reader sees them).
  bind: (loaded) => {
    const bound = parts(readJavascriptParameters(loaded.config));
    return {
      start: (configured, version, budget, warmup, deps) =>
        startInstances(bound, configured, version, budget, warmup, deps),
      // Each instance is one worker thread with no ORT session: it asks the budget for no threads.
      threadParameters: NO_THREAD_PARAMETERS,
      warnings: [],
    };
  },
});

/** What a JavaScript model's workers get: its config as Triton's JSON, its directory, its outputs. */
function javascriptWorkerInit(
  config: ModelConfig,
  modelDir: string,
  decoupled: boolean,
): JavascriptWorkerInit {
  return {
    decoupled,
    modelConfig: toConfigJson(config),
    modelDir,
    batched: config.max_batch_size > 0,
    outputs: config.output.map((o) => {
      const datatype = fromConfigType(o.data_type);
      // Validation has refused any other data_type before a version starts.
      if (datatype === undefined) throw new Error(`output ${o.name} has type ${o.data_type}`);
      return { name: o.name, datatype, dims: [...o.dims] };
    }),
  };
}
