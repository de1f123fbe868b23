// `infernode-bench ab`'s report: medians taken per side and per (model, in flight) cell over the
// rounds, with the rounds' spread, and the section of bench/RESULTS.md naming both builds.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AB_SCHEMA,
  abCells,
  abSection,
  pairedRatio,
  pooledRatio,
  type AbMeasurement,
  type AbResult,
  type AbSide,
} from '../../../bench/ab/ab-result.js';
import { machineInfo } from '../../../bench/measure/machine-info.js';

const m = (side: AbSide, model: string, round: number, cpu: number, rps = 1000): AbMeasurement => ({
  side,
  model,
  concurrency: 1,
  round,
  reqPerSec: rps,
  p50Ms: 0.5 + round / 10,
  p99Ms: 2 + round,
  cpuUsPerRequest: cpu,
  errors: 0,
});

const result = (measurements: AbMeasurement[]): AbResult => ({
  schema: AB_SCHEMA,
  startedAt: '2026-11-28T00:00:00.000Z',
  command: 'node dist/bench/cli.js ab --base-dist ../old/dist',
  machine: machineInfo(),
  base: 'aaaaaaaaaaaa',
  head: 'bbbbbbbbbbbb',
  measurementMs: 4000,
  rounds: 3,
  measurements,
});

void describe('bench ab report', () => {
  const r = result([
    m('base', 'mlp', 1, 500),
    m('base', 'mlp', 2, 900),
    m('base', 'mlp', 3, 520),
    m('head', 'mlp', 1, 510),
    m('head', 'mlp', 2, 480),
    m('head', 'mlp', 3, 700),
    m('base', 'simple', 1, 300),
    m('head', 'simple', 1, 330),
  ]);

  void it('takes the median of each side per cell, and the spread over the rounds', () => {
    const cells = abCells(r);
    assert.deepEqual(
      cells.map((c) => [c.model, c.concurrency]),
      [
        ['mlp', 1],
        ['simple', 1],
      ],
    );
    const mlp = cells[0];
    assert.equal(mlp?.base.cpuUsPerRequest, 520);
    assert.equal(mlp?.head.cpuUsPerRequest, 510);
    assert.deepEqual(mlp?.base.cpuUsRange, [500, 900]);
    assert.equal(mlp?.base.p99Ms, 4);
  });

  void it('renders a row per cell with both commits named', () => {
    const text = abSection(r, 'bench/results/per-request-ab.json').join('\n');
    assert.match(text, /`aaaaaaaaaaaa`/);
    assert.match(text, /`bbbbbbbbbbbb`/);
    assert.match(text, /\| mlp +\| +1 \| +520 \(500–900\) \| +510 \(480–700\) \| +-1\.9 % \|/);
    assert.match(text, /\| simple +\| +1 \| +300 \(300–300\) \| +330 \(330–330\) \| +\+10\.0 % \|/);
  });

  void it('pairs each round: the geometric mean of head/base with a t interval', () => {
    const same = pairedRatio([1.05, 1.05, 1.05]);
    assert.ok(same !== null);
    assert.ok(Math.abs(same.ratio - 1.05) < 1e-12 && Math.abs(same.low - 1.05) < 1e-12);
    assert.equal(same.n, 3);
    // log ratios ±0.02 around 0: mean 0, sd 0.02, n 4, t(3) 3.182 → half width 0.0318.
    const p = pairedRatio([Math.exp(0.02), Math.exp(-0.02), Math.exp(0.02), Math.exp(-0.02)]);
    assert.ok(p !== null);
    assert.ok(Math.abs(p.ratio - 1) < 1e-12);
    assert.ok(Math.abs(Math.log(p.high) - (3.182 * (0.02 * Math.sqrt(4 / 3))) / 2) < 1e-9);
    assert.equal(pairedRatio([1.1]), null, 'one pair has no interval');
    // The fixture: mlp pairs 510/500, 480/900, 700/520; simple's single pair joins the pool.
    const cells = abCells(r);
    assert.equal(cells[0]?.paired?.n, 3);
    assert.equal(cells[1]?.paired, null);
    assert.equal(pooledRatio(r)?.n, 4);
  });

  void it('says whether the pooled interval holds no difference', () => {
    const text = abSection(r, 'bench/results/per-request-ab.json').join('\n');
    assert.match(text, /\| simple +\| +1 \| .* \| +\+10\.0 % \| +– \|/);
    assert.match(text, /All cells together \(4 pairs\): head\/base .*: no difference seen/);
    const costly = result([
      m('base', 'mlp', 1, 500),
      m('head', 'mlp', 1, 600),
      m('base', 'mlp', 2, 510),
      m('head', 'mlp', 2, 610),
      m('base', 'mlp', 3, 490),
      m('head', 'mlp', 3, 590),
    ]);
    assert.match(
      abSection(costly, 'x.json').join('\n'),
      /\(3 pairs\): .*: head costs more; at 95 % confidence the change adds at most \+21\.0 %/,
    );
  });
});
