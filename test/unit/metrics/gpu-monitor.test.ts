// The owner of the nvidia-smi process (src/metrics/gpu-metrics.ts) with stand-in executables: an
// nvidia-smi that keeps exiting is restarted spaced out, with one warning for the run of failures,
// its stale figures dropped; stop() ends a running one and cancels a pending restart.

import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/logger.js';
import { GPU_RESTART_BASE_MS, GpuMonitor } from '../../../src/metrics/gpu-metrics.js';
import { processExists } from '../../helpers/fake-nvidia-smi.js';
import { waitFor } from '../../helpers/wait-for.js';

const UUID = 'GPU-11111111-2222-3333-4444-555555555555';

void describe('GpuMonitor', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-gpu-monitor-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** An executable running `body` (CommonJS), noting each start's pid in `<name>.pids`. */
  const script = async (name: string, body: string): Promise<string> => {
    const file = path.join(dir, name);
    const pids = JSON.stringify(`${file}.pids`);
    await writeFile(
      file,
      `#!${process.execPath}\nrequire('node:fs').appendFileSync(${pids}, process.pid + '\\n');\n${body}\n`,
    );
    await chmod(file, 0o755);
    return file;
  };
  const pids = async (file: string): Promise<number[]> =>
    (await readFile(`${file}.pids`, 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  const logs = (): { lines: string[]; logger: ReturnType<typeof createLogger> } => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    return { lines, logger: createLogger(1, sink) };
  };
  const level = (lines: string[], n: number): string[] =>
    lines.filter((l) => (JSON.parse(l) as { level: number }).level === n);

  void it('restarts an nvidia-smi that exits, spaced out, with one warning, and drops stale figures', async () => {
    const command = await script(
      'exits',
      `console.log('${UUID}, 50, 100, 10, 60.00, 70.00, 1000'); console.error('boom'); process.exit(3);`,
    );
    const { lines, logger } = logs();
    const monitor = new GpuMonitor({ intervalMs: 50, logger, command });
    monitor.start();
    await waitFor(
      () => pids(command),
      (p) => p.length === 2,
      GPU_RESTART_BASE_MS * 5,
    );
    const started = await pids(command);
    assert.equal(started.length, 2, 'restarted after the first exit');
    // Next restart after 2 s: none more yet.
    await new Promise((r) => setTimeout(r, GPU_RESTART_BASE_MS / 2));
    assert.equal((await pids(command)).length, 2, 'the second restart waits longer');
    const warns = level(lines, 40);
    assert.equal(warns.length, 1, lines.join('\n'));
    assert.match(warns[0]!, /nvidia-smi exited/);
    assert.match(warns[0]!, /"code":3/);
    assert.match(warns[0]!, /boom/);
    assert.equal(level(lines, 50).length, 0);
    // The GPU is still known (its energy total stays), without a sample while nothing runs.
    await waitFor(
      () => monitor.pid,
      (p) => p === undefined,
    );
    assert.deepEqual(monitor.readings(), [{ uuid: UUID, sample: undefined, energyJoules: 0 }]);
    await monitor.stop();
    await new Promise((r) => setTimeout(r, GPU_RESTART_BASE_MS * 2));
    assert.equal((await pids(command)).length, 2, 'stop() cancels the pending restart');
  });

  void it('stop() ends a running nvidia-smi, and one that ignores SIGTERM too', async () => {
    const command = await script(
      'stubborn',
      `process.on('SIGTERM', () => {}); setInterval(() => console.log('${UUID}, 1, 2, 3, 4, 5, 6'), 20);`,
    );
    const { logger, lines } = logs();
    const monitor = new GpuMonitor({ intervalMs: 20, logger, command });
    monitor.start();
    const seen = await waitFor(
      () => monitor.readings(),
      (r) => r[0]?.sample !== undefined,
    );
    assert.equal(seen[0]?.sample?.utilization, 0.01);
    const [pid] = await pids(command);
    assert.ok(pid !== undefined && processExists(pid));
    await monitor.stop();
    assert.equal(processExists(pid), false);
    assert.equal(monitor.pid, undefined);
    assert.deepEqual(level(lines, 40), [], 'a stop is not a failure');
  });
});
