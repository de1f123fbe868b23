// The reporter's tallies as /metrics renders them: counts and bucket placement as prom-client's own
// children gave them, one series shared by two reporters of a version (a reload), series that
// exist from load, and a forgotten version's series gone even if its reporter still reports.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsCatalog } from '../../../src/metrics/metrics-catalog.js';
import { ModelReporter } from '../../../src/metrics/model-reporter.js';

/** The value of the one sample line whose name and labels are exactly `series`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const timing = (totalMs: number, queueMs: number) => ({
  totalNs: totalMs * 1e6,
  queueNs: queueMs * 1e6,
  inputNs: 1000,
  inferNs: 2000,
  outputNs: 3000,
});

void describe('ModelReporter metrics', () => {
  void it('renders counters, gauges and histogram buckets as prom-client observations would', async () => {
    const catalog = new MetricsCatalog();
    const r = new ModelReporter(catalog, 'm', 1);
    const first = await catalog.registry.metrics();
    // Series that exist from load, at 0; failures appear only once one happens.
    assert.equal(sample(first, 'nv_inference_pending_request_count{model="m",version="1"}'), 0);
    assert.equal(sample(first, 'infernode_instance_restarts_total{model="m",version="1"}'), 0);
    assert.equal(sample(first, 'nv_inference_request_success{model="m",version="1"}'), undefined);

    r.enqueued();
    r.enqueued();
    r.dequeued();
    r.execution(3, 1000, 0.0003e9, 1000);
    r.succeeded(timing(0.25, 0.05)); // 250 µs lands in le=0.00025 (upper bounds are inclusive)
    r.succeeded(timing(40_000, 0.05)); // 40 s: above every bound, only +Inf and count
    r.failed('REJECTED', 10);
    const text = await catalog.registry.metrics();
    const at = (name: string, extra = ''): number | undefined =>
      sample(text, `${name}{${extra}model="m",version="1"}`);
    assert.equal(at('nv_inference_pending_request_count'), 1);
    assert.equal(at('nv_inference_request_success'), 2);
    assert.equal(at('nv_inference_count'), 3);
    assert.equal(at('nv_inference_exec_count'), 1);
    assert.equal(at('nv_inference_compute_infer_duration_us'), 4);
    assert.equal(
      sample(text, 'nv_inference_request_failure{model="m",version="1",reason="REJECTED"}'),
      1,
    );
    assert.equal(at('infernode_request_duration_seconds_bucket', 'le="0.0001",'), 0);
    assert.equal(at('infernode_request_duration_seconds_bucket', 'le="0.00025",'), 1);
    assert.equal(at('infernode_request_duration_seconds_bucket', 'le="30",'), 1);
    assert.equal(at('infernode_request_duration_seconds_bucket', 'le="+Inf",'), 2);
    assert.equal(at('infernode_request_duration_seconds_count'), 2);
    assert.ok(Math.abs((at('infernode_request_duration_seconds_sum') ?? 0) - 40.00025) < 1e-9);
    assert.equal(at('infernode_batch_size_bucket', 'le="2",'), 0);
    assert.equal(at('infernode_batch_size_bucket', 'le="4",'), 1);
    assert.equal(at('infernode_compute_infer_duration_seconds_bucket', 'le="0.0005",'), 1);

    // A second scrape with nothing new changes nothing (deltas are moved, not re-added).
    const again = await catalog.registry.metrics();
    assert.equal(sample(again, 'nv_inference_request_success{model="m",version="1"}'), 2);
    assert.equal(
      sample(again, 'infernode_request_duration_seconds_count{model="m",version="1"}'),
      2,
    );
  });

  void it('shares one series between two reporters of a version and drops a forgotten one', async () => {
    const catalog = new MetricsCatalog();
    const old = new ModelReporter(catalog, 'm', 1);
    const next = new ModelReporter(catalog, 'm', 1);
    old.enqueued();
    next.enqueued();
    old.succeeded(timing(1, 0));
    next.succeeded(timing(1, 0));
    let text = await catalog.registry.metrics();
    assert.equal(sample(text, 'nv_inference_pending_request_count{model="m",version="1"}'), 2);
    assert.equal(sample(text, 'nv_inference_request_success{model="m",version="1"}'), 2);

    catalog.forgetModelVersion('m', 1);
    old.succeeded(timing(1, 0)); // a request finishing after the unload
    text = await catalog.registry.metrics();
    assert.equal(text.includes('model="m"'), false);

    // Loaded again: a fresh series that starts from zero.
    const reloaded = new ModelReporter(catalog, 'm', 1);
    reloaded.succeeded(timing(1, 0));
    text = await catalog.registry.metrics();
    assert.equal(sample(text, 'nv_inference_request_success{model="m",version="1"}'), 1);
  });
});
