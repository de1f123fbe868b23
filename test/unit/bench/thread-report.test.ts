// The thread sweep's rendering (issue 25): which runs count as one and where they are published,
// its table (one row per transport, server set-up and level, with the scaling over one thread),
// and its section of RESULTS.md next to the others.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProtocolRun } from '../../../bench/report/protocol-table.js';
import { publishedName } from '../../../bench/report/publish.js';
import { renderResultsMarkdown } from '../../../bench/report/results-md.js';
import {
  isThreadSweepRun,
  setupName,
  threadSweepSections,
  threadSweepTable,
} from '../../../bench/report/thread-table.js';
import { comparisonFixture, protocolFixture, threadSweepFixture } from './result-fixture.js';

void describe('thread sweep report', () => {
  void it('is recognised by its targets and published under its model name', () => {
    const sweep = threadSweepFixture();
    assert.equal(isThreadSweepRun(sweep), true);
    assert.equal(isProtocolRun(sweep), false);
    assert.equal(publishedName(sweep), 'threads-mlp.json');
    assert.equal(isThreadSweepRun(protocolFixture()), false);
    assert.equal(isThreadSweepRun(comparisonFixture()), false);
  });

  void it('names each server set-up, and says when a server served on fewer threads', () => {
    assert.equal(setupName({ threads: 1, processes: 1, servedThreads: [1] }), '1 thread');
    assert.equal(setupName({ threads: 4, processes: 1, servedThreads: [4] }), '4 threads');
    assert.equal(setupName({ threads: 1, processes: 2, servedThreads: [1, 1] }), '2 processes');
    assert.equal(
      setupName({ threads: 2, processes: 1, servedThreads: [1] }),
      '2 threads (served on 1)',
    );
    assert.equal(setupName({ threads: 2, processes: 1, servedThreads: [null] }), '2 threads');
  });

  void it('has one row per transport, set-up and level, scaled against one thread', () => {
    const result = threadSweepFixture();
    const t = threadSweepTable(result);
    assert.deepEqual(t.headers, [
      'transport',
      'server',
      'concurrency',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server cores',
      'other cores',
      '× 1 thread',
    ]);
    assert.deepEqual(
      t.rows.map((r) => r.slice(0, 3)),
      [
        ['HTTP JSON', '1 thread', '1'],
        ['HTTP JSON', '1 thread', '64'],
        ['HTTP JSON', '2 threads', '1'],
        ['HTTP JSON', '2 threads', '64'],
        ['HTTP JSON', '2 processes', '1'],
        ['HTTP JSON', '2 processes', '64'],
        ['WebSocket msgpack', '1 thread', '1'],
        ['WebSocket msgpack', '1 thread', '64'],
        ['WebSocket msgpack', '2 threads (served on 1)', '1'],
        ['WebSocket msgpack', '2 threads (served on 1)', '64'],
        ['WebSocket msgpack', '2 processes', '1'],
        ['WebSocket msgpack', '2 processes', '64'],
      ],
    );
    // Each figure is the level's own; the ratio divides by the same transport's one-thread row.
    const rps = (i: number, l: number): number =>
      result.targets[i]?.levels[l]?.summary.reqPerSec ?? Number.NaN;
    assert.equal(t.rows[0]?.[3], Math.round(rps(0, 0)).toLocaleString('en-US'));
    assert.equal(t.rows[0]?.[8], '1×');
    assert.equal(t.rows[3]?.[8], `${(rps(1, 1) / rps(0, 1)).toFixed(2)}×`);
    assert.equal(t.rows[11]?.[8], `${(rps(5, 1) / rps(3, 1)).toFixed(2)}×`);
    const cpu = result.targets[2]?.levels[1]?.summary.cpu;
    assert.equal(t.rows[5]?.[6], cpu?.server?.toFixed(2));
    assert.equal(t.rows[5]?.[7], cpu?.other?.toFixed(2));
  });

  void it('renders its own RESULTS.md section with the command and the machine', () => {
    const result = threadSweepFixture();
    const sections = threadSweepSections([{ result, source: 'bench/results/threads-mlp.json' }]);
    const md = renderResultsMarkdown(null, '', '', [], [], sections);
    assert.match(md, /## Front-end threads on `mlp`: threads and processes/);
    assert.ok(md.includes(`Produced by \`${result.command}\``));
    assert.match(md, /rendered from `bench\/results\/threads-mlp\.json`/);
    assert.match(md, /- \*\*Machine:\*\* 2 × Test CPU/);
    assert.match(md, /\| HTTP JSON \| 2 processes \| 64 \|/);
    assert.match(md, /gRPC is served by the main thread/);
  });
});
