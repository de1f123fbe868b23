// deploy/kubernetes and the Dockerfile, checked against the Kubernetes API schemas (kubernetes-models),
// the custom resources' fields (crd-shapes.ts), and the server itself: the probe and metrics paths
// answer on a real server started with the Deployment's flags, the ports are the CLI's defaults,
// the grace period outlasts --exit-timeout-secs, and the autoscaler's metric is computed from
// metric families the server exports.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { DEFAULT_OPTIONS, parseArgs, type ServerOptions } from '../../src/cli/server-options.js';
import {
  ADAPTER_CONFIG,
  CLUSTER_SERVING_RUNTIME,
  INFERENCE_SERVICE,
  POD_MONITOR,
} from '../helpers/crd-shapes.js';
import {
  containersOf,
  readManifests,
  renderKustomization,
  type Manifest,
} from '../helpers/kustomize-render.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { checkShape, type Shape } from '../helpers/resource-shape.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { toolingSkipped } from '../helpers/tooling-suites.js';

const K8S = path.join(REPO_ROOT, 'deploy', 'kubernetes');

/** Validates with kubernetes-models' generated OpenAPI validators; throws with the schema errors. */
const KUBERNETES_KINDS: Record<string, (doc: Manifest) => void> = {
  'apps/v1 Deployment': (d) => new Deployment(d as never).validate(),
  'v1 Service': (d) => new Service(d as never).validate(),
  'v1 ConfigMap': (d) => new ConfigMap(d as never).validate(),
  'policy/v1 PodDisruptionBudget': (d) => new PodDisruptionBudget(d as never).validate(),
  'autoscaling/v2 HorizontalPodAutoscaler': (d) =>
    new HorizontalPodAutoscaler(d as never).validate(),
};
const CUSTOM_KINDS: Record<string, Shape> = {
  'serving.kserve.io/v1alpha1 ClusterServingRuntime': CLUSTER_SERVING_RUNTIME,
  'serving.kserve.io/v1beta1 InferenceService': INFERENCE_SERVICE,
  'monitoring.coreos.com/v1 PodMonitor': POD_MONITOR,
};

function validate(doc: Manifest, where: string): void {
  const key = `${doc.apiVersion} ${doc.kind}`;
  const k8s = KUBERNETES_KINDS[key];
  if (k8s !== undefined) return k8s(doc);
  const shape = CUSTOM_KINDS[key];
  assert.ok(shape !== undefined, `${where}: no schema for ${key}`);
  assert.deepEqual(checkShape(doc, shape), [], `${where}: ${key}`);
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? yamlFiles(p) : e.name.endsWith('.yaml') ? [p] : [];
  });
}

function one(manifests: readonly Manifest[], kind: string): any {
  const found = manifests.filter((m) => m.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0];
}

function options(container: IContainer): ServerOptions {
  const parsed = parseArgs(container.args ?? []);
  assert.deepEqual(parsed.warnings, []);
  return parsed.options;
}

/** The adapter's rules, from the ConfigMap's embedded configuration file. */
function adapterRules(): any[] {
  const map = one(readManifests(path.join(K8S, 'prometheus-adapter', 'rules.yaml')), 'ConfigMap');
  const config = yaml.load(map.data['config.yaml'] as string);
  assert.deepEqual(checkShape(config, ADAPTER_CONFIG), []);
  return (config as { rules: any[] }).rules;
}

/** Metric names a PromQL query reads: identifiers followed by a label matcher. */
function metricNames(promql: string): string[] {
  return [...promql.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1] as string);
}

void describe('deploy/kubernetes', { skip: toolingSkipped('deploy') }, () => {
  const base = renderKustomization(path.join(K8S, 'base'));
  const gpu = renderKustomization(path.join(K8S, 'overlays', 'gpu'));
  const deployment = one(base, 'Deployment');
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0] as IContainer;
  const opts = options(container);

  void it('every manifest validates against its schema, the overlays as rendered', () => {
    const files = yamlFiles(K8S).filter(
      (f) => !f.endsWith('kustomization.yaml') && !f.endsWith('-patch.yaml'),
    );
    assert.ok(files.length >= 9, `manifests: ${files.length}`);
    for (const f of files) for (const doc of readManifests(f)) validate(doc, f);
    for (const doc of [...base, ...gpu]) validate(doc, 'rendered kustomization');
    assert.deepEqual(
      base.map((m) => m.kind),
      ['Deployment', 'Service', 'PodDisruptionBudget', 'PodMonitor', 'HorizontalPodAutoscaler'],
    );
  });

  void it('and would say so: a wrong type or an unknown custom field is reported', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = '8000';
    assert.throws(() => validate(broken, 'broken'), /containerPort must be integer/);
    const isvc = readManifests(path.join(K8S, 'kserve', 'inference-service.yaml'))[0] as any;
    isvc.spec.predictor.canaryTrafficPercnt = 10;
    assert.throws(() => validate(isvc, 'typo'), /canaryTrafficPercnt: unknown field/);
  });

  void it('listens on the CLI default ports, and the Service routes to them by name', () => {
    const ports = new Map(container.ports?.map((p) => [p.name, p.containerPort]));
    assert.deepEqual(Object.fromEntries(ports), {
      http: DEFAULT_OPTIONS.httpPort,
      grpc: DEFAULT_OPTIONS.grpcPort,
      metrics: DEFAULT_OPTIONS.metricsPort,
    });
    assert.equal(opts.httpPort, DEFAULT_OPTIONS.httpPort);
    assert.equal(opts.grpcPort, DEFAULT_OPTIONS.grpcPort);
    assert.equal(opts.metricsPort, DEFAULT_OPTIONS.metricsPort);
    assert.ok(opts.allowGrpc && opts.allowMetrics);
    const service = one(base, 'Service');
    for (const p of service.spec.ports) {
      assert.equal(p.port, ports.get(p.targetPort), `Service port ${p.name}`);
    }
  });

  void it('gives the drain its time: grace period > preStop + --exit-timeout-secs > delay', () => {
    assert.equal(container.lifecycle?.preStop, undefined, 'a preStop sleep would add to the sum');
    assert.ok(opts.drainDelaySecs > 0 && opts.drainDelaySecs < opts.exitTimeoutSecs);
    // A few seconds on top for the last running batch and the workers' exit.
    assert.ok(pod.spec.terminationGracePeriodSeconds >= opts.exitTimeoutSecs + 5);
    assert.equal(deployment.spec.strategy.rollingUpdate.maxUnavailable, 0);
  });

  void it('runs as non-root on a read-only root filesystem, models read-only', () => {
    assert.equal(pod.spec.securityContext.runAsNonRoot, true);
    assert.ok(pod.spec.securityContext.runAsUser > 0);
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    const models = container.volumeMounts?.find((v) => opts.modelRepositories[0] === v.mountPath);
    assert.equal(models?.readOnly, true);
  });

  void it('selects its own pods from the Service, budget and monitor; scales the Deployment', () => {
    const labels = pod.metadata.labels as Record<string, string>;
    const matches = (sel: Record<string, string>) =>
      Object.entries(sel).every(([k, v]) => labels[k] === v);
    assert.ok(matches(one(base, 'Service').spec.selector));
    assert.ok(matches(one(base, 'PodDisruptionBudget').spec.selector.matchLabels));
    const monitor = one(base, 'PodMonitor');
    assert.ok(matches(monitor.spec.selector.matchLabels));
    assert.ok(matches(deployment.spec.selector.matchLabels));
    const portNames = container.ports?.map((p) => p.name);
    for (const e of monitor.spec.podMetricsEndpoints) assert.ok(portNames?.includes(e.port));
    const hpa = one(base, 'HorizontalPodAutoscaler');
    assert.deepEqual(hpa.spec.scaleTargetRef, {
      apiVersion: deployment.apiVersion,
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    assert.equal(deployment.spec.replicas, undefined, 'the autoscaler owns the replica count');
  });

  void it("scales on the adapter rule's metric, built from Triton's queue and success counters", () => {
    const hpa = one(base, 'HorizontalPodAutoscaler');
    const names = hpa.spec.metrics.map((m: any) => m.pods.metric.name);
    const rules = adapterRules();
    assert.deepEqual(
      names,
      rules.map((r) => r.name.as),
    );
    for (const r of rules) {
      const series = metricNames(r.seriesQuery)[0] ?? '';
      assert.match(series, new RegExp(r.name.matches as string));
      assert.deepEqual(
        new Set(metricNames(r.metricsQuery)),
        new Set([series, 'nv_inference_request_success']),
      );
    }
  });

  void it('the GPU overlay asks for one GPU, with the CUDA image and a writable CUDA cache', () => {
    const c = one(gpu, 'Deployment').spec.template.spec.containers[0];
    assert.equal(c.resources.limits['nvidia.com/gpu'], '1');
    assert.match(c.image, /cuda/);
    assert.equal(containersOf(base)[0]?.image, 'infernode:0.1.0');
    assert.ok(c.env.some((e: any) => e.name === 'CUDA_CACHE_PATH' && e.value.startsWith('/tmp/')));
  });

  void it("the GPU overlay keeps the base's env", () => {
    const env = new Map<string, string>(
      one(gpu, 'Deployment').spec.template.spec.containers[0].env.map((e: any) => [
        e.name,
        e.value,
      ]),
    );
    assert.ok((container.env ?? []).length > 0);
    for (const e of container.env ?? []) assert.equal(env.get(e.name), e.value, e.name);
  });

  void it("the GPU overlay adds WebGPU's driver capability and its shader cache on /tmp", () => {
    const env = new Map<string, string>(
      one(gpu, 'Deployment').spec.template.spec.containers[0].env.map((e: any) => [
        e.name,
        e.value,
      ]),
    );
    assert.deepEqual(env.get('NVIDIA_DRIVER_CAPABILITIES')?.split(',').sort(), [
      'compute',
      'graphics',
      'utility',
    ]);
    // The driver caches only into a directory that exists: the /tmp volume itself.
    assert.equal(env.get('__GL_SHADER_DISK_CACHE_PATH'), '/tmp');
    assert.ok(
      container.volumeMounts?.some((m) => m.mountPath === '/tmp'),
      'the base mounts a volume at /tmp',
    );
  });

  void describe('against a server started with the Deployment flags', () => {
    let repo: string;
    let server: SpawnedServer;
    before(async () => {
      repo = await tempRepository();
      await copyModel(repo, 'simple');
      const flags = (container.args ?? []).filter((a) => !a.startsWith('--model-repository='));
      server = await spawnServer([...flags, `--model-repository=${repo}`]);
    });
    after(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
      await rm(repo, { recursive: true, force: true });
    });

    void it('answers 200 on every probe path', async () => {
      const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe];
      for (const probe of probes) {
        assert.equal(probe?.httpGet?.port, 'http');
        const res = await fetch(`${server.base}${probe?.httpGet?.path}`);
        assert.equal(res.status, 200, probe?.httpGet?.path);
      }
    });

    void it("serves the monitor's path, with every metric the adapter rule reads", async () => {
      const path_ = one(base, 'PodMonitor').spec.podMetricsEndpoints[0].path as string;
      const text = await (await fetch(`${server.metricsBase}${path_}`)).text();
      const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      for (const r of adapterRules()) {
        for (const name of metricNames(r.metricsQuery)) assert.ok(exported.has(name), name);
      }
    });
  });
});

void describe('deploy/kubernetes/kserve', { skip: toolingSkipped('deploy') }, () => {
  const dir = path.join(K8S, 'kserve');
  const runtime = readManifests(path.join(dir, 'cluster-serving-runtime.yaml'))[0] as any;
  const isvc = readManifests(path.join(dir, 'inference-service.yaml'))[0] as any;
  const canary = readManifests(path.join(dir, 'inference-service-canary.yaml'))[0] as any;

  void it('the runtime serves v2 and grpc-v2 for onnx, on the ports KServe routes to', () => {
    assert.deepEqual(runtime.spec.protocolVersions, ['v2', 'grpc-v2']);
    assert.ok(runtime.spec.supportedModelFormats.some((f: any) => f.name === 'onnx'));
    const c = runtime.spec.containers[0] as IContainer;
    assert.equal(c.name, 'kserve-container');
    const o = options(c);
    assert.deepEqual(o.modelRepositories, ['/mnt/models']);
    assert.equal(o.httpPort, 8080);
    assert.equal(o.grpcPort, 9000);
    assert.equal(c.readinessProbe?.httpGet?.port, o.httpPort);
    assert.equal(c.readinessProbe?.httpGet?.path, '/v2/health/ready');
    assert.equal(runtime.spec.annotations['prometheus.kserve.io/port'], String(o.metricsPort));
  });

  void it('the InferenceService and its canary name the runtime and a format it supports', () => {
    for (const s of [isvc, canary]) {
      const m = s.spec.predictor.model;
      assert.equal(m.runtime, runtime.metadata.name);
      assert.ok(runtime.spec.supportedModelFormats.some((f: any) => f.name === m.modelFormat.name));
      assert.ok(runtime.spec.protocolVersions.includes(m.protocolVersion));
    }
    assert.equal(canary.metadata.name, isvc.metadata.name, 'a canary updates the same service');
    assert.notEqual(canary.spec.predictor.model.storageUri, isvc.spec.predictor.model.storageUri);
    const pct = canary.spec.predictor.canaryTrafficPercent as number;
    assert.ok(pct > 0 && pct < 100);
    assert.equal(isvc.spec.predictor.canaryTrafficPercent, undefined);
  });
});

void describe('Dockerfile', { skip: toolingSkipped('deploy') }, () => {
  const text = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  // Instructions, comments dropped and continuation lines joined.
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const stages = lines.join('\n').split(/^(?=FROM )/m);
  const final = stages.at(-1) ?? '';

  void it('builds every stage from Node 24 slim; only the final stage runs, without npm', () => {
    assert.equal(stages.length, 3);
    for (const s of stages) assert.match(s, /^FROM node:24-slim\b/);
    assert.match(text, /npm ci --omit=dev/);
    assert.doesNotMatch(final, /^RUN .*npm (ci|install)/m);
    assert.match(final, /^RUN rm -rf .*\/usr\/local\/bin\/npm/m);
  });

  void it("has the Vulkan loader WebGPU runs on, without apt's lists", () => {
    assert.match(final, /^RUN apt-get update +&& apt-get install .*\blibvulkan1\b/m);
    assert.match(final, /rm -rf \/var\/lib\/apt\/lists\/\*/);
  });

  void it('runs as the non-root user the Deployment names, stops on SIGTERM, exposes the ports', () => {
    const deployment = one(renderKustomization(path.join(K8S, 'base')), 'Deployment');
    const user = /^USER (\d+):(\d+)$/m.exec(final);
    assert.ok(user !== null, 'a numeric USER');
    assert.equal(Number(user[1]), deployment.spec.template.spec.securityContext.runAsUser);
    assert.match(final, /^STOPSIGNAL SIGTERM$/m);
    const exposed = /^EXPOSE (.*)$/m.exec(final)?.[1]?.split(' ').map(Number);
    assert.deepEqual(exposed, [
      DEFAULT_OPTIONS.httpPort,
      DEFAULT_OPTIONS.grpcPort,
      DEFAULT_OPTIONS.metricsPort,
    ]);
  });
});
