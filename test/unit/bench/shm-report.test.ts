// The shared-memory comparison's section: a row per model, size and carrier, and issue 28's two
// targets at 64 MiB in words, with ONNX Runtime alone (no server) named as the memory floor.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineInfo } from '../../../bench/measure/machine-info.js';
import { shmSection } from '../../../bench/report/shm-report.js';
import { SHM_SCHEMA, type Carrier, type ShmRow } from '../../../bench/shm/shm-result.js';

const MIB = 2 ** 20;
const row = (carrier: Carrier, p50Ms: number, growthMib: number): ShmRow => ({
  model: 'identity_fp32',
  tensorBytes: 64 * MIB,
  carrier,
  requests: 20,
  p50Ms,
  p99Ms: p50Ms * 2,
  idleBytes: 100 * MIB,
  peakBytes: (100 + growthMib) * MIB,
});
const section = (rows: ShmRow[]): string =>
  shmSection(
    {
      schema: SHM_SCHEMA,
      command: 'bench shm',
      startedAt: '2026-11-28',
      machine: machineInfo(),
      rows,
    },
    'bench/results/shared-memory.json',
  ).join('\n');

void describe('shm report', () => {
  void it('checks both targets at 64 MiB and names the ORT-alone floor', () => {
    const text = section([
      row('http-binary', 600, 290),
      row('shared-memory', 120, 195),
      row('ort-alone', 90, 194),
    ]);
    assert.match(text, /\| identity_fp32 \| 64 MiB \| ort-alone +\| +20 \| +90\.00 \|/);
    assert.match(text, /p50 is 0\.20× HTTP binary's \(target ≤ 0\.5×: met\)/);
    assert.match(text, /growth is 3\.05× the tensor \(target ≤ 1×: not met\)/);
    assert.match(text, /ONNX Runtime alone grows 3\.03× .*: the ≤ 1× target is out of reach/);
  });

  void it('states the floor without a verdict when it is under the target', () => {
    const text = section([
      row('http-binary', 600, 50),
      row('shared-memory', 100, 40),
      row('ort-alone', 90, 32),
    ]);
    assert.match(text, /ONNX Runtime alone grows 0\.50× .*the floor under any server\./);
    assert.doesNotMatch(text, /out of reach/);
  });

  void it('says so when a run has no 64 MiB rows', () => {
    assert.match(section([]), /Targets: no 64 MiB rows in this run\./);
  });
});
