// The shared-memory leak check's section: a row per sampled cycle, and per protocol the drift after
// warm-up with the RSS range of each half, so a sawtooth (heap growth handed back by a collection)
// reads differently from a leak (new highs to the end).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineInfo } from '../../../bench/measure/machine-info.js';
import { shmLeakSection } from '../../../bench/report/shm-leak-report.js';
import {
  SHM_LEAK_SCHEMA,
  type LeakProtocol,
  type ShmLeakResult,
} from '../../../bench/shm/shm-leak-result.js';

const MIB = 2 ** 20;

function run(protocol: LeakProtocol, rssMib: readonly number[]): ShmLeakResult {
  return {
    schema: SHM_LEAK_SCHEMA,
    command: `node dist/bench/shm-leak.js --protocol ${protocol}`,
    startedAt: '2026-11-28T09:30:00.000Z',
    machine: machineInfo(),
    protocol,
    cycles: (rssMib.length - 1) * 1000,
    every: 1000,
    samples: rssMib.map((m, i) => ({
      cycle: i * 1000,
      rssBytes: m * MIB,
      peakRssBytes: m * MIB,
      fds: 31,
    })),
  };
}

void describe('shm leak report', () => {
  void it('gives each protocol its drift and the RSS range of both halves after warm-up', () => {
    const text = shmLeakSection(
      [run('ws', [140, 150, 170, 190, 160, 155, 158]), run('grpc', [140, 150, 160, 170, 180])],
      ['bench/results/shm-leak-ws.json', 'bench/results/shm-leak-grpc.json'],
    ).join('\n');
    assert.match(text, /\| 3000 \| +190\.0 \| +31 \| +170\.0 \| +31 \|/);
    assert.match(
      text,
      /- ws: from cycle 1000 to 6000, RSS \+8\.0 MiB, open fds 31 → 31; RSS 150\.0–190\.0 MiB over the first half, 155\.0–160\.0 MiB over the second\./,
    );
    assert.match(
      text,
      /- grpc: from cycle 1000 to 4000, RSS \+30\.0 MiB, .* 150\.0–160\.0 MiB over the first half, 170\.0–180\.0 MiB over the second\./,
    );
  });

  void it('says when there are too few samples', () => {
    const text = shmLeakSection([run('http', [140])], ['x.json']).join('\n');
    assert.match(text, /http: too few samples to judge\./);
  });
});
