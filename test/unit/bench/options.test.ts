// The command line: perf_analyzer's spellings, ranges (with the xK multiplier), and errors that
// name what was expected and what arrived.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLoadRange, rangeLevels } from '../../../bench/options/load-range.js';
import { parseBenchFlags, parseThreadSweep } from '../../../bench/options/parse-flags.js';
import { parseServerUrl } from '../../../bench/options/server-url.js';
import { UsageError } from '../../../bench/options/usage-error.js';

const levels = (text: string, integer = true): number[] => [
  ...rangeLevels(parseLoadRange('--r', text, integer)),
];

void describe('load ranges', () => {
  void it('steps additively, including the end when a step lands on it', () => {
    assert.deepEqual(levels('1:4'), [1, 2, 3, 4]);
    assert.deepEqual(levels('2:9:3'), [2, 5, 8]);
    assert.deepEqual(levels('5'), [5]);
  });

  void it('multiplies with an xK step', () => {
    assert.deepEqual(levels('1:64:x8'), [1, 8, 64]);
    assert.deepEqual(levels('1:100:x2'), [1, 2, 4, 8, 16, 32, 64]);
  });

  void it('takes fractional request rates without drift', () => {
    assert.deepEqual(levels('0.1:0.5:0.1', false), [0.1, 0.2, 0.3, 0.4, 0.5]);
    assert.deepEqual(levels('100:250.5:75.25', false), [100, 175.25, 250.5]);
  });

  void it('rejects malformed ranges, quoting them', () => {
    for (const bad of ['', '1:2:3:4', 'a:2', '0:4', '4:2', '1:4:0', '1:4:x1', '1.5:3', '1::2']) {
      assert.throws(
        () => parseLoadRange('--concurrency-range', bad, true),
        (e: unknown) => {
          assert.ok(e instanceof UsageError);
          assert.match(e.message, /^--concurrency-range: /);
          return true;
        },
      );
    }
  });
});

void describe('parseBenchFlags', () => {
  void it("has perf_analyzer's defaults", () => {
    const { options, help } = parseBenchFlags(['-m', 'mlp'], 'bench');
    assert.equal(help, false);
    assert.equal(options.model, 'mlp');
    assert.equal(options.batchSize, 1);
    assert.equal(options.measurementIntervalMs, 5000);
    assert.equal(options.stabilityPercentage, 10);
    assert.equal(options.maxTrials, 10);
    assert.equal(options.percentile, -1);
    assert.equal(options.url, 'localhost:8000');
    assert.deepEqual(options.inputData, { kind: 'random' });
    assert.deepEqual(options.sweep, {
      kind: 'concurrency',
      range: { start: 1, end: 1, step: { kind: 'add', by: 1 } },
    });
    assert.equal(options.sharedMemory, 'none');
    assert.equal(options.outputSharedMemorySize, 102_400);
    assert.ok(Object.isFrozen(options));
  });

  void it("reads perf_analyzer's --shared-memory and --output-shared-memory-size", () => {
    const { options } = parseBenchFlags(
      ['-m', 'mlp', '-i', 'grpc', '--shared-memory', 'system', '--output-shared-memory-size', '40'],
      'bench',
    );
    assert.equal(options.sharedMemory, 'system');
    assert.equal(options.outputSharedMemorySize, 40);
  });

  void it('reads short, glued and --flag=value spellings', () => {
    const { options } = parseBenchFlags(
      [
        '-mmlp',
        '-b',
        '8',
        '-x=2',
        '--measurement-interval=250',
        '-s',
        '5',
        '--shape',
        'IN:3,4',
        '--shape=B:1',
        '--binary',
      ],
      'bench',
    );
    assert.equal(options.model, 'mlp');
    assert.equal(options.batchSize, 8);
    assert.equal(options.modelVersion, '2');
    assert.equal(options.measurementIntervalMs, 250);
    assert.equal(options.stabilityPercentage, 5);
    assert.deepEqual(options.shapes, { IN: [3, 4], B: [1] });
    assert.equal(options.binary, true);
  });

  void it('takes a request-rate sweep with its distribution', () => {
    const { options } = parseBenchFlags(
      ['-m', 'm', '--request-rate-range', '10:30:10', '--request-distribution', 'poisson'],
      'bench',
    );
    assert.equal(options.sweep.kind, 'request-rate');
    assert.equal(options.sweep.kind === 'request-rate' && options.sweep.distribution, 'poisson');
  });

  void it('explains what is wrong', () => {
    const cases: [string[], RegExp][] = [
      [[], /-m <model> is required/],
      [['-m', 'm', '--bogus'], /unknown flag --bogus/],
      [['-m', 'm', '--async'], /perf_analyzer's --async is not supported here/],
      [['-m', 'm', '--concurrency-range', '1:2', '--request-rate-range', '5'], /not both/],
      [['-m', 'm', '-b', '0'], /--batch-size: expected an integer >= 1, got "0"/],
      [['-m', 'm', '-b', '1.5'], /--batch-size: expected an integer >= 1, got "1.5"/],
      [['-m', 'm', '--input-data', 'foo'], /expected zero, random or a FILE\.json, got "foo"/],
      [['-m', 'm', '--shape', 'X'], /--shape: expected name:d1,d2/],
      [['-m', 'm', '-i', 'grpcs'], /-i: expected http, ws or grpc, got "grpcs"/],
      [
        ['-m', 'm', '--streaming'],
        /--streaming is gRPC streaming \(ModelStreamInfer\): it needs -i grpc/,
      ],
      [['-m', 'm', '-i', 'grpc', '--binary'], /-i grpc sends raw_input_contents/],
      [['-m', 'm', '-b', '1', '-b', '2'], /--batch-size given twice/],
      [['-m', 'm', '--targets', 'raw-ort'], /unknown flag --targets/],
      [['-m', 'm', '--concurrency-range', '1:0'], /needs --latency-threshold/],
      [['-m', 'm', '--request-distribution', 'poisson'], /applies to --request-rate-range only/],
      [['-m'], /--model-name needs a value/],
      [['-m', 'm', '-i', 'ws', '--binary'], /-i ws frames are always binary/],
      [['-m', 'm', '--ws-connections', '-1'], /--ws-connections: expected an integer 0..1024/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(() => parseBenchFlags(argv, 'bench'), message, argv.join(' '));
    }
  });

  void it('keeps compare-only flags to bench:compare, in canonical target order', () => {
    const { options } = parseBenchFlags(
      ['-m', 'm', '--targets', 'infernode,raw-ort', '--no-publish'],
      'compare',
    );
    assert.deepEqual(options.targets, ['raw-ort', 'infernode']);
    assert.equal(options.publish, false);
    assert.throws(
      () => parseBenchFlags(['-m', 'm', '--targets', 'triton'], 'compare'),
      /got "triton"/,
    );
    assert.throws(() => parseBenchFlags(['-m', 'm', '--serve'], 'compare'), /unknown flag --serve/);
  });

  void it('-i ws with its socket count; --targets protocols names infernode over each transport', () => {
    const ws = parseBenchFlags(['-m', 'm', '-i', 'ws', '--ws-connections', '3'], 'bench').options;
    assert.equal(ws.protocol, 'ws');
    assert.equal(ws.wsConnections, 3);
    assert.equal(parseBenchFlags(['-m', 'm'], 'bench').options.wsConnections, 0);
    const cmp = parseBenchFlags(['-m', 'm', '--targets', 'protocols'], 'compare').options;
    assert.deepEqual(cmp.targets, [
      'infernode',
      'infernode-binary',
      'infernode-ws',
      'infernode-grpc',
      'infernode-grpc-stream',
    ]);
    const mixed = parseBenchFlags(['-m', 'm', '--targets', 'infernode-ws,raw-ort'], 'compare');
    assert.deepEqual(mixed.options.targets, ['raw-ort', 'infernode-ws']);
  });

  void it("-i grpc: unary or --streaming, at Triton's gRPC port unless -u says otherwise", () => {
    const unary = parseBenchFlags(['-m', 'm', '-i', 'grpc'], 'bench').options;
    assert.equal(unary.protocol, 'grpc');
    assert.equal(unary.streaming, false);
    assert.equal(unary.url, 'localhost:8001');
    const stream = parseBenchFlags(['-m', 'm', '-i', 'grpc', '--streaming', '-u', 'h:9'], 'bench');
    assert.equal(stream.options.streaming, true);
    assert.equal(stream.options.url, 'h:9');
    assert.equal(parseBenchFlags(['-m', 'm'], 'bench').options.url, 'localhost:8000');
  });

  void it('prints help without a model', () => {
    assert.equal(parseBenchFlags(['--help'], 'bench').help, true);
  });
});

void describe('parseServerUrl', () => {
  void it('takes host:port with or without http://', () => {
    assert.deepEqual(parseServerUrl('localhost:8000'), { host: 'localhost', port: 8000 });
    assert.deepEqual(parseServerUrl('http://10.0.0.2:9000/'), { host: '10.0.0.2', port: 9000 });
    assert.deepEqual(parseServerUrl('[::1]:8001'), { host: '::1', port: 8001 });
    assert.deepEqual(parseServerUrl('example'), { host: 'example', port: 8000 });
    assert.deepEqual(parseServerUrl('example', 8001), { host: 'example', port: 8001 });
    assert.throws(() => parseServerUrl('https://x:1'), /expected host:port/);
    assert.throws(() => parseServerUrl('x:70000'), /got "x:70000"/);
  });
});

void describe('--thread-sweep', () => {
  void it('auto is 1, 2, 4, ... up to the cores, and the cores themselves', () => {
    assert.deepEqual(parseThreadSweep('auto', 1), [1]);
    assert.deepEqual(parseThreadSweep('auto', 2), [1, 2]);
    assert.deepEqual(parseThreadSweep('auto', 16), [1, 2, 4, 8, 16]);
    assert.deepEqual(parseThreadSweep('auto', 12), [1, 2, 4, 8, 12]);
  });

  void it('takes a list, ascending and without repeats, and refuses anything else', () => {
    assert.deepEqual(parseThreadSweep('4,1, 2,4', 2), [1, 2, 4]);
    for (const bad of ['', '0', '1,,2', 'two', '1.5', '300']) {
      assert.throws(() => parseThreadSweep(bad, 2), /^UsageError: --thread-sweep: expected auto/);
    }
  });

  void it('runs infernode over every transport by default, with the N-process reference', () => {
    const { options } = parseBenchFlags(['-m', 'mlp', '--thread-sweep', '1,2'], 'compare');
    assert.deepEqual(options.threadSweep, [1, 2]);
    assert.equal(options.processReference, true);
    assert.deepEqual(options.targets, [
      'infernode',
      'infernode-binary',
      'infernode-ws',
      'infernode-grpc',
      'infernode-grpc-stream',
    ]);
    const some = parseBenchFlags(
      ['-m', 'mlp', '--thread-sweep', '2', '--targets', 'infernode-ws', '--no-process-reference'],
      'compare',
    ).options;
    assert.deepEqual(some.targets, ['infernode-ws']);
    assert.equal(some.processReference, false);
    const none = parseBenchFlags(['-m', 'mlp'], 'compare').options;
    assert.deepEqual(none.threadSweep, []);
  });

  void it('refuses comparators, a thread count of its own, --trace, and a stray reference flag', () => {
    const cases: [string[], RegExp][] = [
      [['--thread-sweep', '1,2', '--targets', 'raw-ort,infernode'], /not raw-ort/],
      [['--thread-sweep', '1,2', '--server-arg=--http-thread-count=4'], /sets --http-thread-count/],
      [['--thread-sweep', '1,2', '--trace'], /--trace-stages/],
      [['--no-process-reference'], /applies to --thread-sweep only/],
    ];
    for (const [args, message] of cases) {
      assert.throws(() => parseBenchFlags(['-m', 'mlp', ...args], 'compare'), message);
    }
    assert.throws(
      () => parseBenchFlags(['-m', 'mlp', '--thread-sweep', '1'], 'bench'),
      /unknown flag --thread-sweep/,
    );
  });
});
