// A target made of several servers (the N-process reference): its settings per server, its
// statistics summed, and its CPU time summed over every process.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processCpuMs } from '../../../bench/measure/process-cpu.js';
import { addCounters, summedCounters } from '../../../bench/measure/server-stats.js';
import { processesCpuMs } from '../../../bench/sweep/profile-level.js';
import {
  engineSettings,
  targetServers,
  type HttpTargetSpec,
} from '../../../bench/targets/http-target.js';
import { counters } from './result-fixture.js';

const spec: HttpTargetSpec = {
  id: 'infernode-p2',
  kind: 'infernode',
  label: 'infernode, 2 processes',
  description: 'two servers',
  host: '127.0.0.1',
  port: 8000,
  pid: 10,
  notes: [],
  replicas: [{ port: 8010, pid: 11 }],
};

void describe('a target of several servers', () => {
  void it('lists its servers and builds one engine setting per port', () => {
    assert.deepEqual(targetServers(spec), [
      { port: 8000, pid: 10 },
      { port: 8010, pid: 11 },
    ]);
    assert.deepEqual(
      engineSettings(spec, (port) => ({ port })),
      { shards: [{ port: 8000 }, { port: 8010 }] },
    );
    const single: HttpTargetSpec = { ...spec, replicas: [] };
    assert.deepEqual(
      engineSettings(single, (port) => ({ port })),
      { port: 8000 },
    );
  });

  void it('sums the servers’ statistics, or has none when one server has none', async () => {
    const a = counters(100, 50, 200);
    const b = counters(300, 10, 100);
    assert.deepEqual(
      await summedCounters([() => Promise.resolve(a), () => Promise.resolve(b)]),
      addCounters(a, b),
    );
    assert.equal(
      await summedCounters([() => Promise.resolve(a), () => Promise.resolve(null)]),
      null,
    );
  });

  void it('sums the CPU time of every process', () => {
    const own = processCpuMs(process.pid);
    if (own === null) return; // not Linux: nothing to read
    const twice = processesCpuMs([process.pid, process.pid]) ?? 0;
    assert.ok(twice >= 2 * own - 50, `${twice} ms for twice ${own} ms`);
    assert.equal(processesCpuMs([process.pid, 2 ** 30]), null);
  });
});
