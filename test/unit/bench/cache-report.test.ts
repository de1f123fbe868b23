// `infernode-bench cache`'s report: issue 30's two targets computed from the right rows, the memory
// run's verdict taken over the 30 s after the cache filled against the last 30 s, and the section
// of bench/RESULTS.md naming both.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CACHE_MEMORY_SCHEMA,
  CACHE_SCHEMA,
  cacheTargets,
  memoryVerdict,
  responseCacheSection,
  type CacheMemoryResult,
  type CacheResult,
  type CacheRow,
} from '../../../bench/cache/cache-result.js';
import { machineInfo } from '../../../bench/measure/machine-info.js';

const LOCAL = 'local,size=1048576';

function row(
  cache: string,
  hitRatio: number,
  concurrency: number,
  reqPerSec: number,
  p50Ms: number,
): CacheRow {
  return {
    cache,
    hitRatio,
    concurrency,
    reqPerSec,
    p50Ms,
    p99Ms: p50Ms * 3,
    errors: 0,
    stable: true,
    serverHits: cache === 'none' ? 0 : Math.round(hitRatio * 100),
    serverMisses: cache === 'none' ? 0 : Math.round((1 - hitRatio) * 100),
    avgHitUs: 20,
    avgMissUs: 30,
  };
}

const TABLE: CacheResult = {
  schema: CACHE_SCHEMA,
  startedAt: '2026-11-27T00:00:00.000Z',
  command: 'node dist/bench/cli.js cache',
  machine: machineInfo(),
  model: 'mlp',
  transport: 'HTTP binary',
  rows: [
    row('none', 0, 1, 800, 1.2),
    row('none', 0.9, 1, 800, 1.2),
    row('none', 0.9, 64, 1000, 60),
    row(LOCAL, 0, 1, 780, 1.25),
    row(LOCAL, 0.9, 1, 2000, 0.5),
    row(LOCAL, 0.9, 64, 2500, 25),
  ],
};

function memoryRun(rss: (t: number) => number, fullAt: number | null): CacheMemoryResult {
  return {
    schema: CACHE_MEMORY_SCHEMA,
    startedAt: '2026-11-27T00:00:00.000Z',
    command: 'node dist/bench/cli.js cache --memory-secs 120',
    machine: machineInfo(),
    model: 'mlp',
    cacheConfig: 'local,size=4194304',
    budgetBytes: 4_194_304,
    concurrency: 16,
    seconds: 120,
    requests: 100_000,
    errors: 0,
    samples: Array.from({ length: 120 }, (_, t) => ({
      t,
      rssBytes: rss(t),
      cacheBytes: fullAt !== null && t >= fullAt ? 4_190_000 : t * 1000,
      evictions: fullAt !== null && t >= fullAt ? t : 0,
    })),
    // 10-second windows: 600 req/s for the first half, 900 after.
    windows: Array.from({ length: 12 }, (_, i) => ({ t: i * 10, reqPerSec: i < 6 ? 600 : 900 })),
  };
}

void describe('bench cache report', () => {
  void it('computes the targets: hit p50 over miss p50 at 1 in flight, 90 % throughput over uncached at 64', () => {
    const t = cacheTargets(TABLE, LOCAL);
    assert.equal(t.hitOverMissP50, 0.5 / 1.25);
    assert.equal(t.throughputOverUncached, 2.5);
    assert.deepEqual(cacheTargets({ ...TABLE, rows: TABLE.rows.slice(0, 3) }, LOCAL), {
      hitOverMissP50: null,
      throughputOverUncached: null,
    });
  });

  void it('calls RSS flat when the last 30 s stay within 5 % of the first 30 s after the cache filled', () => {
    // Growth while filling (before 10 s) does not count against the budget.
    const flat = memoryVerdict(memoryRun((t) => (t < 10 ? 100e6 + t * 5e6 : 160e6), 10));
    assert.equal(flat.fullAtS, 10);
    assert.equal(flat.flat, true);
    assert.equal(flat.maxCacheBytes, 4_190_000);
    assert.equal(flat.firstReqPerSec, 600, 'the windows starting 10..39 s');
    assert.equal(flat.lastReqPerSec, 900, 'the windows overlapping the last 30 s');
    const growing = memoryVerdict(memoryRun((t) => 100e6 + t * 1e6, 10));
    assert.equal(growing.flat, false);
    assert.ok(growing.lastMeanBytes > growing.firstMeanBytes * 1.05);
    assert.equal(memoryVerdict(memoryRun(() => 100e6, null)).flat, false, 'never full: no verdict');
  });

  void it('renders one section with every model table, the targets and the memory run', () => {
    const withCpu: CacheResult = {
      ...TABLE,
      model: 'ocr_recognizer',
      rows: TABLE.rows.map((r) => ({ ...r, serverCpuUsPerReq: 812.4 })),
    };
    const text = responseCacheSection(
      [
        { result: TABLE, source: 'bench/results/response-cache.json' },
        { result: withCpu, source: 'bench/results/response-cache-ocr_recognizer.json' },
      ],
      { result: memoryRun(() => 150e6, 5), source: 'bench/results/response-cache-memory.json' },
    ).join('\n');
    assert.match(text, /^## Response cache/);
    assert.ok(text.indexOf('### mlp') < text.indexOf('### ocr_recognizer'), 'mlp first');
    assert.match(
      text,
      /\| local \| 90 % \| 64 \| 2500 \| 25\.00 \| 75\.00 \| 90 % \| 20 \/ 30 \| – \| 0 \|/,
      'a file without server CPU shows a dash',
    );
    assert.match(
      text,
      /\| local \| 90 % \| 64 \| 2500 \| 25\.00 \| 75\.00 \| 90 % \| 20 \/ 30 \| 812 \| 0 \|/,
    );
    assert.match(
      text,
      /`local,size=1048576`: p50 .*: 0\.40× \(target ≤ 0\.5×: met\); .*: 2\.50× \(target ≥ 2×: met\)/,
    );
    assert.match(
      text,
      /\| 5 s \| 4190000 of 4194304 \| 143\.1 MiB \| 143\.1 MiB \| 600 \/ 900 \| yes \(within 5 %\) \|/,
    );
    assert.deepEqual(responseCacheSection([], null), []);
  });
});
