// `--trace-config` as Triton spells it, the settings update check, and the sampler's rate, count and
// model overrides (request-tracer.ts) on a real OpenTelemetry tracer whose spans stay in memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTraceConfig } from '../../../src/trace/trace-config.js';
import { RequestTracer } from '../../../src/trace/request-tracer.js';
import { OtelExport } from '../../../src/trace/otel-export.js';
import { parseTraceUpdate } from '../../../src/trace/trace-settings.js';

void describe('--trace-config', () => {
  void it('reads the global and opentelemetry settings Triton documents', () => {
    const c = parseTraceConfig([
      'mode=opentelemetry',
      'opentelemetry,url=http://collector:4318',
      'opentelemetry,resource=service.name=svc',
      'opentelemetry,resource=deployment.environment=prod',
      'opentelemetry,bsp_max_queue_size=100',
      'opentelemetry,bsp_schedule_delay=250',
      'opentelemetry,bsp_max_export_batch_size=10',
      'rate=100',
      'level=TIMESTAMPS',
      'count=50',
      'log-frequency=3',
    ]);
    assert.deepEqual(c.settings, { level: 'TIMESTAMPS', rate: 100, count: 50, logFrequency: 3 });
    assert.equal(c.export.url, 'http://collector:4318/v1/traces');
    assert.deepEqual(c.export.resource, {
      'service.name': 'svc',
      'deployment.environment': 'prod',
    });
    assert.equal(c.export.maxQueueSize, 100);
    assert.equal(c.export.scheduleDelayMs, 250);
    assert.equal(c.export.maxExportBatchSize, 10);
  });

  void it("defaults to Triton's: level OFF, rate 1000, count -1, the local collector", () => {
    const c = parseTraceConfig([]);
    assert.deepEqual(c.settings, { level: 'OFF', rate: 1000, count: -1, logFrequency: 0 });
    assert.equal(c.export.url, 'http://localhost:4318/v1/traces');
  });

  void it('refuses what it does not implement, and bad values, saying why', () => {
    const cases: [string, RegExp][] = [
      ['mode=triton', /expected mode=opentelemetry .*got 'triton'/],
      ['triton,file=/tmp/t.json', /JSON trace file mode is not implemented/],
      ['rate=0', /trace_rate: expected a positive integer, got "0"/],
      ['rate=many', /trace_rate: expected a positive integer, got "many"/],
      ['count=-5', /trace_count: expected an integer >= -1/],
      ['level=TENSORS', /TENSORS is not supported/],
      ['level=LOUD', /expected OFF or TIMESTAMPS, got "LOUD"/],
      ['opentelemetry,url=ftp://x', /expected an http\(s\) URL/],
      ['opentelemetry,bsp_max_queue_size=0', /expected a positive integer, got '0'/],
      ['opentelemetry,sampler=always', /unknown opentelemetry setting 'sampler'/],
      ['jaeger,url=x', /unknown trace mode 'jaeger'/],
      ['verbose=1', /unknown setting 'verbose'/],
      ['rate', /expected \[opentelemetry,\]<setting>=<value>/],
    ];
    for (const [flag, message] of cases) {
      assert.throws(() => parseTraceConfig([flag]), message, flag);
      assert.throws(() => parseTraceConfig([flag]), /--trace-config /, flag);
    }
  });
});

void describe('trace settings updates', () => {
  void it('takes strings, arrays of one string, null to clear, and level arrays', () => {
    assert.deepEqual(
      parseTraceUpdate({
        trace_level: ['OFF', 'TIMESTAMPS'],
        trace_rate: ['7'],
        trace_count: null,
        log_frequency: '2',
        trace_mode: 'opentelemetry',
      }),
      { level: 'TIMESTAMPS', rate: 7, count: null, logFrequency: 2 },
    );
    assert.deepEqual(parseTraceUpdate({ trace_level: [] }), { level: null });
  });
});

void describe('which requests are traced', () => {
  const tracer = (flags: string[]): RequestTracer => {
    const c = parseTraceConfig(flags);
    return new RequestTracer(c.settings, new OtelExport(c.export, () => undefined));
  };
  const sampled = (t: RequestTracer, model: string, n: number): number[] => {
    const hits: number[] = [];
    for (let i = 1; i <= n; i++) {
      if (t.begin(model, 1, Number(process.hrtime.bigint()), undefined, undefined) !== undefined) {
        hits.push(i);
      }
    }
    return hits;
  };

  void it('with level OFF, none', () => {
    assert.deepEqual(sampled(tracer(['rate=1']), 'm', 5), []);
  });

  void it('every rate-th while the count lasts, counting the count down', () => {
    const t = tracer(['level=TIMESTAMPS', 'rate=3', 'count=2']);
    assert.deepEqual(sampled(t, 'm', 12), [3, 6]);
    assert.equal(t.settings().trace_count, '0');
  });

  void it('a model with its own settings counts alone; cleared, it follows the server', () => {
    const t = tracer(['level=TIMESTAMPS', 'rate=4']);
    t.update('a', { rate: 2 });
    assert.deepEqual(sampled(t, 'a', 4), [2, 4]);
    assert.deepEqual(sampled(t, 'b', 4), [4]);
    t.update('a', { level: 'OFF' });
    assert.deepEqual(sampled(t, 'a', 4), []);
    t.update('a', { level: null, rate: null });
    assert.equal(t.settings('a').trace_rate, '4');
    t.update(undefined, { level: 'OFF' });
    assert.deepEqual(sampled(t, 'a', 8), []);
  });

  void it('a model tracing while the server does not', () => {
    const t = tracer(['rate=1']);
    t.update('a', { level: 'TIMESTAMPS' });
    assert.deepEqual(sampled(t, 'a', 2), [1, 2]);
    assert.deepEqual(sampled(t, 'b', 2), []);
  });
});
