// The custom resources in deploy/kubernetes, as shapes (resource-shape.ts) of the fields they use.
// No npm package carries these CRDs' schemas, so the fields are transcribed from the projects' API
// definitions: KServe's ClusterServingRuntime (serving.kserve.io/v1alpha1, ServingRuntimeSpec) and
// InferenceService (serving.kserve.io/v1beta1, PredictorSpec and ModelSpec), Prometheus Operator's
// PodMonitor (monitoring.coreos.com/v1), prometheus-adapter's configuration file, and kustomize's
// Kustomization. A field a manifest starts to use must be added here first.

import type { Shape } from './resource-shape.js';

const metadata: Shape = {
  object: {
    name: 'string',
    namespace: 'string',
    labels: { map: 'string' },
    annotations: { map: 'string' },
  },
  required: ['name'],
};

const resource = (apiVersion: string, kind: string, spec: Shape, extra = {}): Shape => ({
  object: {
    apiVersion: { enum: [apiVersion] },
    kind: { enum: [kind] },
    metadata,
    spec,
    ...extra,
  },
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
});

const labelSelector: Shape = {
  object: { matchLabels: { map: 'string' } },
  required: ['matchLabels'],
};

export const CLUSTER_SERVING_RUNTIME = resource(
  'serving.kserve.io/v1alpha1',
  'ClusterServingRuntime',
  {
    object: {
      annotations: { map: 'string' },
      supportedModelFormats: {
        array: {
          object: { name: 'string', version: 'string', autoSelect: 'boolean', priority: 'integer' },
          required: ['name'],
        },
      },
      protocolVersions: { array: { enum: ['v1', 'v2', 'grpc-v1', 'grpc-v2'] } },
      multiModel: 'boolean',
      disabled: 'boolean',
      containers: { array: { k8s: 'Container' } },
    },
    required: ['supportedModelFormats', 'containers'],
  },
);

export const INFERENCE_SERVICE = resource('serving.kserve.io/v1beta1', 'InferenceService', {
  object: {
    predictor: {
      object: {
        minReplicas: 'integer',
        maxReplicas: 'integer',
        scaleMetric: { enum: ['cpu', 'memory', 'concurrency', 'rps'] },
        scaleTarget: 'integer',
        canaryTrafficPercent: 'integer',
        model: {
          object: {
            modelFormat: {
              object: { name: 'string', version: 'string' },
              required: ['name'],
            },
            runtime: 'string',
            storageUri: 'string',
            protocolVersion: { enum: ['v1', 'v2', 'grpc-v1', 'grpc-v2'] },
          },
          required: ['modelFormat'],
        },
      },
      required: ['model'],
    },
  },
  required: ['predictor'],
});

export const POD_MONITOR = resource('monitoring.coreos.com/v1', 'PodMonitor', {
  object: {
    selector: labelSelector,
    podMetricsEndpoints: {
      array: {
        object: { port: 'string', path: 'string', interval: 'string', scheme: 'string' },
        required: ['port'],
      },
    },
  },
  required: ['selector', 'podMetricsEndpoints'],
});

/** prometheus-adapter's --config file (pkg/config: MetricsDiscoveryConfig), custom rules only. */
export const ADAPTER_CONFIG: Shape = {
  object: {
    rules: {
      array: {
        object: {
          seriesQuery: 'string',
          resources: {
            object: {
              overrides: { map: { object: { resource: 'string' }, required: ['resource'] } },
              template: 'string',
            },
          },
          name: { object: { matches: 'string', as: 'string' }, required: ['matches'] },
          metricsQuery: 'string',
        },
        required: ['seriesQuery', 'metricsQuery'],
      },
    },
  },
  required: ['rules'],
};

/** The subset of kustomize's Kustomization that the renderer in kustomize-render.ts implements. */
export const KUSTOMIZATION: Shape = {
  object: {
    apiVersion: { enum: ['kustomize.config.k8s.io/v1beta1'] },
    kind: { enum: ['Kustomization'] },
    resources: { array: 'string' },
    images: {
      array: {
        object: { name: 'string', newName: 'string', newTag: 'string' },
        required: ['name'],
      },
    },
    patches: {
      array: {
        object: {
          path: 'string',
          target: { object: { kind: 'string', name: 'string' }, required: ['kind', 'name'] },
        },
        required: ['path', 'target'],
      },
    },
  },
  required: ['apiVersion', 'kind', 'resources'],
};

/** A JSON patch (RFC 6902) with the operations the renderer applies. */
export const JSON_PATCH: Shape = {
  array: {
    object: { op: { enum: ['add', 'replace'] }, path: 'string', value: 'any' },
    required: ['op', 'path', 'value'],
  },
};
