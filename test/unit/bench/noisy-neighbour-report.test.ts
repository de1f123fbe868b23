// The noisy-neighbour section: with several rounds, each phase's medians over the rounds and B's
// p99 ratio as the median of each round's own ratio (against B alone in the same round).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineInfo } from '../../../bench/measure/machine-info.js';
import {
  medianPhases,
  NOISY_SCHEMA,
  noisySection,
  roundRatios,
  type NoisyPhase,
  type NoisyPhaseName,
  type NoisyResult,
  type TenantFigures,
} from '../../../bench/tenants/noisy-neighbour-result.js';

const tenant = (p99Ms: number, admittedPerSec = 20, throttled = 0): TenantFigures => ({
  sent: 600,
  ok: 600 - throttled,
  throttled,
  errors: 0,
  admittedPerSec,
  p50Ms: p99Ms / 3,
  p99Ms,
});
const phase = (name: NoisyPhaseName, bP99: number, aRate?: number): NoisyPhase => ({
  name,
  quotas: name === 'A + B, quotas on',
  a: aRate === undefined ? null : tenant(5, aRate, 100),
  b: tenant(bP99),
});
// Round 2 runs in rotated order; its B-alone p99 is high, so its own ratio stays low.
const rounds: NoisyPhase[][] = [
  [phase('B alone', 10), phase('A + B, quotas off', 12, 200), phase('A + B, quotas on', 11, 20.6)],
  [phase('A + B, quotas off', 30, 200), phase('A + B, quotas on', 24, 20.4), phase('B alone', 20)],
  [phase('B alone', 8), phase('A + B, quotas off', 9, 200), phase('A + B, quotas on', 40, 20.8)],
];

const result = (r: NoisyPhase[][]): NoisyResult => ({
  schema: NOISY_SCHEMA,
  startedAt: '2026-11-28T10:00:00.000Z',
  command: 'node dist/bench/cli.js noisy-neighbour --rounds 3',
  machine: machineInfo(),
  phaseSecs: 30,
  quotaRps: { a: 20, b: 40 },
  sendRps: { a: 200, b: 20 },
  phases: medianPhases(r),
  rounds: r,
  note: 'quiet',
});

void describe('noisy-neighbour report', () => {
  void it('pairs B p99 with B alone inside each round', () => {
    assert.deepEqual(roundRatios(rounds, 'A + B, quotas on'), [1.1, 1.2, 5]);
    const phases = medianPhases(rounds);
    assert.deepEqual(
      phases.map((p) => p.name),
      ['B alone', 'A + B, quotas off', 'A + B, quotas on'],
    );
    assert.equal(phases[2]?.b.p99Ms, 24, 'median of 11, 24, 40');
    assert.equal(phases[2]?.a?.admittedPerSec, 20.6);
    assert.equal(phases[2]?.a?.throttled, 300, 'counts add up over rounds');
    assert.equal(phases[0]?.a, null);
  });

  void it('renders the medians, the median of the round ratios and each round', () => {
    const text = noisySection(result(rounds), 'bench/results/noisy-neighbour.json').join('\n');
    assert.match(text, /\| A \+ B, quotas on +\| +8\.00 \/ 24\.00 \| +1\.20× \|/);
    assert.match(
      text,
      /3 rounds, .*Per round, quotas on: 1\.10×, 1\.20×, 5\.00×; quotas off: 1\.20×, 1\.50×, 1\.13×\./,
    );
    assert.match(text, /B's p99 alone ranged 8\.00–20\.00 ms over the rounds\./);
  });

  void it('keeps the single-round table as it was', () => {
    const one = {
      ...result([rounds[0] as NoisyPhase[]]),
      rounds: undefined,
      phases: rounds[0] as NoisyPhase[],
    };
    const text = noisySection(one, 'x.json').join('\n');
    assert.match(text, /\| A \+ B, quotas on +\| +3\.67 \/ 11\.00 \| +1\.10× \|/);
    assert.doesNotMatch(text, /rounds, the phase order/);
  });
});
