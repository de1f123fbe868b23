// The Grafana dashboard (deploy/grafana/infernode-dashboard.json) and the HPA's prometheus-adapter
// rule (deploy/kubernetes/prometheus-adapter/rules.yaml), each query evaluated by a real Prometheus
// (Debian's `prometheus`) that scrapes a real infernode every second while it serves a little HTTP
// load: every panel target and the rule's seriesQuery and metricsQuery must return data. Grafana's
// variables are given literal values ($__rate_interval: 30s, $model: .+), the adapter's templates
// the values it would fill in for a pod. The GPU panels (their description says "Needs a GPU") are
// skipped, and listed, where the host has no nvidia-smi: their series cannot exist there.

import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { freePort } from '../../src/http/free-port.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { toolingSkipped } from '../helpers/tooling-suites.js';
import { waitFor } from '../helpers/wait-for.js';

const DASHBOARD = path.join(REPO_ROOT, 'deploy', 'grafana', 'infernode-dashboard.json');
const ADAPTER_RULES = path.join(
  REPO_ROOT,
  'deploy',
  'kubernetes',
  'prometheus-adapter',
  'rules.yaml',
);

/** What a panel says when its series exist only on a host with a GPU (nvidia-smi). */
const GPU_TAG = 'Needs a GPU';

/** The labels a Kubernetes scrape (pod-monitor.yaml) puts on every series, for the adapter rule. */
const POD = { namespace: 'infernode-test', pod: 'infernode-0' };

function missing(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

const SKIP =
  toolingSkipped('deploy') ||
  (missing('prometheus') ? 'no `prometheus` on PATH (Debian: apt-get install prometheus)' : false);

interface Target {
  readonly panel: string;
  readonly expr: string;
  readonly gpu: boolean;
}

interface Panel {
  readonly title: string;
  readonly description?: string;
  readonly targets?: readonly { readonly expr: string }[];
  readonly panels?: readonly Panel[];
}

function dashboardTargets(dashboard: { panels: readonly Panel[] }): Target[] {
  const flat = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return flat.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      panel: p.title,
      expr: t.expr,
      gpu: (p.description ?? '').includes(GPU_TAG),
    })),
  );
}

/** Grafana's variables as literals Prometheus takes. */
const grafanaLiterals = (expr: string): string =>
  expr
    .replaceAll('$__rate_interval', '30s')
    .replaceAll('$__interval', '15s')
    .replaceAll('$__range', '5m')
    .replaceAll('${model}', '.+')
    .replaceAll('$model', '.+');

interface QueryResult {
  readonly status: string;
  readonly error?: string;
  readonly data?: { readonly result: readonly unknown[] };
}

void describe('Grafana dashboard and HPA rule against a real Prometheus', { skip: SKIP }, () => {
  let repo: string;
  let dir: string;
  let server: SpawnedServer;
  let prometheus: ChildProcess | undefined;
  let promBase: string;
  const promLog: string[] = [];

  const query = async (q: string): Promise<QueryResult> => {
    const res = await fetch(`${promBase}/api/v1/query?query=${encodeURIComponent(q)}`);
    return (await res.json()) as QueryResult;
  };
  const hasData = (r: QueryResult): boolean =>
    r.status === 'success' && (r.data?.result.length ?? 0) > 0;

  before(async () => {
    repo = await tempRepository();
    await copyModel(repo, 'simple');
    server = await spawnServer([
      `--model-repository=${repo}`,
      '--model-control-mode=explicit',
      '--load-model=simple',
      '--metrics-interval-ms=500',
    ]);
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-prometheus-'));
    const config = {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      scrape_configs: [
        {
          job_name: 'infernode',
          static_configs: [{ targets: [new URL(server.metricsBase).host], labels: { ...POD } }],
        },
      ],
    };
    // JSON is YAML: Prometheus reads it as it is.
    await writeFile(path.join(dir, 'prometheus.yml'), JSON.stringify(config));
    const port = await freePort('127.0.0.1');
    promBase = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (c: Buffer) => promLog.push(c.toString()));
    prometheus.stderr?.on('data', (c: Buffer) => promLog.push(c.toString()));
    const ready = await waitFor(
      () =>
        fetch(`${promBase}/-/ready`).then(
          (r) => r.ok,
          () => false,
        ),
      (ok) => ok,
      20_000,
    );
    assert.ok(ready, `prometheus did not become ready:\n${promLog.join('')}`);

    // The first scrape comes a few seconds after ready (target discovery): load before it would
    // leave every counter flat over the samples Prometheus has.
    const scraped = await waitFor(() => query('up{job="infernode"} == 1'), hasData, 20_000);
    assert.ok(hasData(scraped), `prometheus never scraped infernode:\n${promLog.join('')}`);

    // A little load for a few scrapes: successes, and one failure (a shape the model refuses).
    const body = (n: number): string =>
      JSON.stringify({
        inputs: ['INPUT0', 'INPUT1'].map((name) => ({
          name,
          datatype: 'INT32',
          shape: [1, n],
          data: Array.from({ length: n }, (_, i) => i),
        })),
      });
    const infer = (b: string): Promise<number> =>
      fetch(`${server.base}/v2/models/simple/infer`, { method: 'POST', body: b }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
      );
    const until = performance.now() + 4000;
    while (performance.now() < until) {
      const statuses = await Promise.all(Array.from({ length: 4 }, () => infer(body(16))));
      assert.deepEqual(statuses, [200, 200, 200, 200]);
      await new Promise((r) => setTimeout(r, 50));
    }
    await infer(body(15));
    // Rates over 30 s need two scrapes that saw the load; wait until Prometheus has them.
    const seen = await waitFor(
      () => query('sum(rate(nv_inference_request_success[30s])) > 0'),
      hasData,
      20_000,
    );
    const targets = await (await fetch(`${promBase}/api/v1/targets`)).text();
    assert.ok(hasData(seen), `no request rate in Prometheus: ${targets}\n${promLog.join('')}`);
    await new Promise((r) => setTimeout(r, 2000));
  });

  after(async () => {
    prometheus?.kill('SIGTERM');
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (prometheus !== undefined && prometheus.exitCode === null) {
      await new Promise((r) => prometheus?.once('exit', r));
    }
    await rm(repo, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  void it('returns data for every panel query (GPU panels listed as skipped on a host without one)', async (t) => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
    const targets = dashboardTargets(dashboard);
    assert.ok(targets.length >= 20, `${targets.length} targets`);
    const gpuHere = !missing('nvidia-smi');
    const empty: string[] = [];
    const skipped: string[] = [];
    for (const target of targets) {
      if (target.gpu && !gpuHere) {
        skipped.push(`${target.panel}: ${target.expr}`);
        continue;
      }
      const expr = grafanaLiterals(target.expr);
      assert.ok(!expr.includes('$'), `a Grafana variable left in: ${expr}`);
      const r = await query(expr);
      assert.equal(r.status, 'success', `${target.panel}: ${expr}: ${r.error ?? ''}`);
      if (!hasData(r)) empty.push(`${target.panel}: ${expr}`);
    }
    assert.deepEqual(empty, [], 'panel queries with no data');
    // Only GPU panels may be skipped, and only for want of a GPU.
    for (const s of skipped) assert.match(s, /nv_gpu_|nv_energy_/);
    t.diagnostic(
      `checked ${targets.length - skipped.length} queries; skipped ${skipped.length} ` +
        `(no nvidia-smi here, so no GPU series): ${skipped.join(' | ')}`,
    );
  });

  void it("returns data for the HPA adapter rule's seriesQuery and metricsQuery", async () => {
    const configMap = yaml.load(await readFile(ADAPTER_RULES, 'utf8')) as {
      data: Record<string, string>;
    };
    const rules = (
      yaml.load(configMap.data['config.yaml'] ?? '') as {
        rules: { seriesQuery: string; metricsQuery: string; name: { matches: string } }[];
      }
    ).rules;
    assert.ok(rules.length > 0);
    for (const rule of rules) {
      const series = await query(rule.seriesQuery);
      assert.ok(hasData(series), `seriesQuery ${rule.seriesQuery}: ${JSON.stringify(series)}`);
      const name = /^\^?(.*?)\$?$/.exec(rule.name.matches)?.[1] ?? '';
      // What the adapter fills in when the HPA asks for the metric of one pod.
      const metricsQuery = rule.metricsQuery
        .replaceAll('<<.Series>>', name)
        .replaceAll('<<.LabelMatchers>>', `namespace="${POD.namespace}",pod=~"${POD.pod}"`)
        .replaceAll('<<.GroupBy>>', 'pod');
      assert.ok(!metricsQuery.includes('<<'), metricsQuery);
      const r = await query(metricsQuery);
      assert.ok(hasData(r), `metricsQuery ${metricsQuery}: ${JSON.stringify(r)}`);
    }
  });
});
