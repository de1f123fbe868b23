// The latency checks' floor: a ratio past its limit fails only when the candidate is also slower
// by more than --latency-floor-ms, so microsecond models are not failed by timer noise.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latencyChecks } from '../../../src/validate/checks.js';
import type { BatchLatency } from '../../../src/validate/latency.js';
import { defaultThresholds } from '../../../src/validate/thresholds.js';

const timing = (servingMs: number, candidateMs: number): BatchLatency => {
  const stats = (ms: number) => ({ p50Ms: ms, p99Ms: ms, meanMs: ms, throughput: 1000 / ms });
  return {
    batchSize: 1,
    iterations: 10,
    serving: stats(servingMs),
    candidate: stats(candidateMs),
    p50Ratio: candidateMs / servingMs,
    p99Ratio: candidateMs / servingMs,
  };
};

void describe('validate latency checks', () => {
  void it('fails a ratio past the limit when the candidate is slower by more than the floor', () => {
    const [check] = latencyChecks([timing(0.2, 0.6)], defaultThresholds());
    assert.equal(check?.check, 'max-p50-ratio');
    assert.equal(check?.pass, false);
    assert.equal(check?.limit, '<= 1.5 (or <= 0.05 ms slower)');
  });

  void it('passes a ratio past the limit within the floor, and checks p99 only when asked', () => {
    assert.equal(latencyChecks([timing(0.01, 0.03)], defaultThresholds())[0]?.pass, true);
    const withP99 = latencyChecks([timing(1, 1.2)], { ...defaultThresholds(), maxP99Ratio: 1.1 });
    assert.deepEqual(
      withP99.map((c) => [c.check, c.pass]),
      [
        ['max-p50-ratio', true],
        ['max-p99-ratio', false],
      ],
    );
  });
});
