// Triton's host CPU figures from /proc text: the aggregate cpu line's busy and idle times, the busy
// share between two readings (counters that go back count as 0), and used = MemTotal - MemAvailable.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuUtilization, parseMemInfo, parseProcStat } from '../../../src/metrics/host-sample.js';

void describe('host-sample', () => {
  void it('reads busy (user nice system irq softirq steal) and idle (idle iowait) from /proc/stat', () => {
    const text = 'cpu  10 2 3 100 5 1 1 4 7 0\ncpu0 5 1 1 50 2 0 0 2 0 0\nintr 1\n';
    assert.deepEqual(parseProcStat(text), { busy: 10 + 2 + 3 + 1 + 1 + 4, idle: 105 });
    assert.equal(parseProcStat('cpu0 1 2 3 4\n'), undefined);
    assert.equal(parseProcStat('cpu  a b c d\n'), undefined);
  });

  void it('computes the busy share between readings, 0 for no time and for counters that went back', () => {
    assert.equal(cpuUtilization({ busy: 30, idle: 70 }, { busy: 10, idle: 50 }), 0.5);
    assert.equal(cpuUtilization({ busy: 10, idle: 50 }, { busy: 10, idle: 50 }), 0);
    assert.equal(cpuUtilization({ busy: 5, idle: 60 }, { busy: 10, idle: 50 }), 0);
  });

  void it('computes used memory as MemTotal - MemAvailable, in bytes', () => {
    const text = 'MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n';
    assert.deepEqual(parseMemInfo(text), { total: 1000 * 1024, used: 600 * 1024 });
    assert.equal(parseMemInfo('MemTotal: 1000 kB\n'), undefined);
    assert.equal(parseMemInfo('MemTotal: 100 kB\nMemAvailable: 200 kB\n'), undefined);
  });
});
