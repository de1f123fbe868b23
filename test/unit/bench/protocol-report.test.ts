// The transports comparison's rendering: which runs count as one, its table and ratios to HTTP
// JSON, the verdict on issue 5's target, and its sections in RESULTS.md next to the main one.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  grpcTargetVerdict,
  hasProtocolTargets,
  isProtocolRun,
  protocolCpuTable,
  protocolTable,
  streamTargetVerdict,
  targetVerdicts,
  wsTargetVerdict,
} from '../../../bench/report/protocol-table.js';
import { publishedName } from '../../../bench/report/publish.js';
import { renderResultsMarkdown } from '../../../bench/report/results-md.js';
import { comparisonFixture, grpcProtocolFixture, protocolFixture } from './result-fixture.js';

void describe('transports comparison', () => {
  void it('is recognised by its targets and published under its model name', () => {
    const protocols = protocolFixture();
    const main = comparisonFixture();
    assert.equal(isProtocolRun(protocols), true);
    assert.equal(isProtocolRun(main), false);
    assert.equal(hasProtocolTargets(main), false);
    assert.equal(publishedName(protocols), 'protocols-simple.json');
    assert.equal(publishedName(main), 'latest.json');
    // HTTP JSON alone is the classic comparator's infernode, not a transports comparison.
    const jsonOnly = { ...protocols, targets: protocols.targets.slice(0, 1) };
    assert.equal(isProtocolRun(jsonOnly), false);
  });

  void it('tabulates req/s, p50 and p99 per transport and the ratios to HTTP JSON', () => {
    const result = protocolFixture();
    const t = protocolTable(result);
    assert.deepEqual(t.headers, [
      'concurrency',
      'HTTP JSON req/s',
      'p50 ms',
      'p99 ms',
      'HTTP binary req/s',
      'p50 ms',
      'p99 ms',
      'WebSocket msgpack req/s',
      'p50 ms',
      'p99 ms',
      'ws/json req/s',
      'p99',
      'binary/json req/s',
      'p99',
    ]);
    assert.deepEqual(
      t.rows.map((r) => r[0]),
      ['1', '64'],
    );
    const find = (id: string) => result.targets.find((x) => x.id === id);
    const rps = (id: string, i: number): number =>
      find(id)?.levels[i]?.summary.reqPerSec ?? Number.NaN;
    const expected = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
    for (const [i, row] of t.rows.entries()) {
      assert.equal(row[10], expected(rps('infernode-ws', i), rps('infernode', i)));
      assert.equal(row[12], expected(rps('infernode-binary', i), rps('infernode', i)));
    }
  });

  void it("states whether the WebSocket met issue 5's 1.5× target on simple, per level", () => {
    const result = protocolFixture();
    const ws = result.targets[2]?.levels ?? [];
    const json = result.targets[0]?.levels ?? [];
    const r = ws.map((l, i) => l.summary.reqPerSec / (json[i]?.summary.reqPerSec ?? 1));
    const verdict = wsTargetVerdict(result) ?? '';
    for (const [i, value] of [1, 64].entries()) {
      const ratio = r[i] ?? 0;
      assert.ok(
        verdict.includes(
          `${ratio.toFixed(2)}× at concurrency ${value} (${ratio >= 1.5 ? 'met' : 'not met'})`,
        ),
        verdict,
      );
    }
    assert.equal(wsTargetVerdict({ ...result, model: { ...result.model, name: 'mlp' } }), null);
  });

  void it('renders its own RESULTS.md section after the main comparison, keeping the main one', () => {
    const main = comparisonFixture();
    const protocols = protocolFixture();
    const md = renderResultsMarkdown(main, 'bench/results/latest.json', 'results/latest.png', [
      { result: protocols, source: 'bench/results/protocols-simple.json' },
    ]);
    const mainAt = md.indexOf('## infernode, a naive Fastify server and raw ONNX Runtime');
    const protoAt = md.indexOf(
      '## Transports on `simple`: HTTP JSON, HTTP binary and WebSocket msgpack',
    );
    const readingAt = md.indexOf('## Reading these figures');
    assert.ok(mainAt > 0 && protoAt > mainAt && readingAt > protoAt, md);
    assert.ok(md.includes('rendered from `bench/results/protocols-simple.json`'));
    assert.ok(md.includes('| concurrency | HTTP JSON req/s |'));
    // Without protocol files the document is exactly the main comparison's.
    const alone = renderResultsMarkdown(main, 'bench/results/latest.json', 'results/latest.png');
    assert.equal(alone.includes('## Transports on'), false);
    assert.equal(
      md.replace(md.slice(protoAt, readingAt), ''),
      alone,
      'the protocol section is purely added',
    );
  });

  void it('adds gRPC unary and stream, with their ratios to HTTP binary and to the WebSocket', () => {
    const result = grpcProtocolFixture();
    assert.equal(isProtocolRun(result), true);
    const t = protocolTable(result);
    assert.deepEqual(t.headers.slice(10, 16), [
      'gRPC unary req/s',
      'p50 ms',
      'p99 ms',
      'gRPC stream req/s',
      'p50 ms',
      'p99 ms',
    ]);
    assert.deepEqual(
      t.headers.slice(16).filter((h) => h !== 'p99'),
      ['ws/json req/s', 'binary/json req/s', 'grpc/binary req/s', 'stream/ws req/s'],
    );
    // grpc/binary and stream/ws are the last two ratio pairs: 1150/1100 and 1100/1200 at 1.
    assert.deepEqual(
      t.rows.map((r) => [r[0], r[20], r[22]]),
      [
        ['1', '1.05×', '0.92×'],
        ['64', '0.96×', '0.75×'],
      ],
    );
  });

  void it("states issue 10's targets, met or not per level, on any model", () => {
    const result = grpcProtocolFixture();
    assert.equal(
      grpcTargetVerdict(result),
      "Target: gRPC unary at least HTTP binary's req/s on `simple` — 1.05× at concurrency 1 (met), 0.96× at concurrency 64 (not met).",
    );
    assert.equal(
      streamTargetVerdict(result),
      "Target: gRPC stream at least 90 % of WebSocket msgpack's req/s on `simple` — 0.92× at concurrency 1 (met), 0.75× at concurrency 64 (not met).",
    );
    const mlp = { ...result, model: { ...result.model, name: 'mlp' } };
    assert.deepEqual(
      targetVerdicts(mlp).map((v) => v.slice(0, 30)),
      ['Target: gRPC unary at least HT', 'Target: gRPC stream at least 9'],
      'the WebSocket target is about simple only; the gRPC ones hold on every model',
    );
    // Without the gRPC transports the run states the WebSocket target alone.
    assert.deepEqual(targetVerdicts(protocolFixture()), [wsTargetVerdict(protocolFixture())]);
  });

  void it('titles its RESULTS.md section with the transports it measured, verdicts below', () => {
    const md = renderResultsMarkdown(null, '', '', [
      { result: grpcProtocolFixture(), source: 'bench/results/protocols-simple.json' },
    ]);
    assert.ok(
      md.includes(
        '## Transports on `simple`: HTTP JSON, HTTP binary, WebSocket msgpack, gRPC unary and gRPC stream',
      ),
      md,
    );
    assert.ok(md.includes('| concurrency | HTTP JSON req/s |'));
    assert.ok(md.includes("Target: gRPC unary at least HTTP binary's req/s"));
    assert.ok(md.includes('Target: gRPC stream at least 90 %'));
  });

  void it("shows each transport's server and generator CPU per request, per level", () => {
    const result = grpcProtocolFixture();
    const t = protocolCpuTable(result);
    assert.deepEqual(t.headers.slice(0, 3), [
      'level',
      'HTTP JSON server µs/req',
      'generator µs/req',
    ]);
    assert.equal(t.headers.length, 1 + 2 * 5);
    // Every fixture window has the server at 0.9 cores and the generator at 0.1: at 1,000 req/s
    // (HTTP JSON, concurrency 1) that is 900 and 100 µs a request; at 1,150 (gRPC unary) 783 and 87.
    assert.deepEqual(t.rows[0]?.slice(0, 3), ['concurrency 1', '900', '100']);
    assert.deepEqual(t.rows[0]?.slice(7, 9), ['783', '87']);
    assert.deepEqual(
      t.rows.map((r) => r[0]),
      ['concurrency 1', 'concurrency 64'],
    );
    const md = renderResultsMarkdown(null, '', '', [
      { result, source: 'bench/results/protocols-simple.json' },
    ]);
    assert.ok(md.includes('| level | HTTP JSON server µs/req | generator µs/req |'), md);
  });
});
