// Triton's GPU metrics on the real `infernode` command, read from a fake nvidia-smi put first on
// its PATH (test/helpers/fake-nvidia-smi.ts): the families with their gpu_uuid label and moving
// figures, one nvidia-smi for the whole server and none left after it stops; nothing at all, and
// no error, where nvidia-smi does not exist; nothing spawned with --allow-gpu-metrics=false; and
// the energy counter integrated from power.draw where the driver refuses total_energy_consumption.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  FAKE_GPU_UUIDS,
  FAKE_MEMORY_TOTAL_MIB,
  fakeNvidiaSmi,
  processExists,
  type FakeNvidiaSmi,
} from '../helpers/fake-nvidia-smi.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { tempRepository } from '../helpers/temp-repository.js';
import { logged, waitFor } from '../helpers/wait-for.js';

const GPU_FAMILIES = [
  'nv_gpu_utilization',
  'nv_gpu_memory_total_bytes',
  'nv_gpu_memory_used_bytes',
  'nv_gpu_power_usage',
  'nv_gpu_power_limit',
  'nv_energy_consumption',
] as const;

/** The fake's interval: short, so figures move within a test. */
const INTERVAL = '--metrics-interval-ms=100';

interface Sample {
  readonly name: string;
  readonly labels: string;
  readonly value: number;
}

/** Every sample line of the server's /metrics. */
async function scrape(s: SpawnedServer): Promise<Sample[]> {
  const text = await (await fetch(`${s.metricsBase}/metrics`)).text();
  return text.split('\n').flatMap((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    return m === null ? [] : [{ name: m[1] as string, labels: m[2] ?? '', value: Number(m[3]) }];
  });
}

const gpuSamples = (all: readonly Sample[]): Sample[] =>
  all.filter((x) => x.name.startsWith('nv_gpu_') || x.name.startsWith('nv_energy_'));

const value = (all: readonly Sample[], name: string, uuid: string): number | undefined =>
  all.find((x) => x.name === name && x.labels === `gpu_uuid="${uuid}"`)?.value;

/** The server's log records at warn level or above (pino: 40 warn, 50 error, 60 fatal). */
const warnings = (lines: readonly string[]): string[] =>
  lines.filter((l) => {
    try {
      return (JSON.parse(l) as { level?: number }).level! >= 40;
    } catch {
      return true; // not a log record: something wrote to stdout/stderr directly
    }
  });

void describe('GPU metrics from nvidia-smi', () => {
  let repo: string;
  const servers: SpawnedServer[] = [];
  const temps: string[] = [];
  const serve = async (args: string[], pathDir: string): Promise<SpawnedServer> => {
    // node:http on every Node: the uWS front end warns on Node 22+ (no binary for its ABI), and
    // these tests count every warning.
    const front = '--http-front-end=node';
    const s = await spawnServer([`--model-repository=${repo}`, front, ...args], 30_000, {
      ...process.env,
      PATH: pathDir,
    });
    servers.push(s);
    return s;
  };
  const fake = async (opts?: { noEnergyField?: boolean }): Promise<FakeNvidiaSmi> => {
    const f = await fakeNvidiaSmi(opts);
    temps.push(f.dir);
    return f;
  };
  /** SIGTERM, and the exit status. */
  const stop = async (s: SpawnedServer): Promise<number | string> => {
    s.child.kill('SIGTERM');
    return s.exited;
  };

  before(async () => {
    repo = await tempRepository();
  });
  after(async () => {
    for (const s of servers) {
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    }
    await Promise.all([repo, ...temps].map((d) => rm(d, { recursive: true, force: true })));
  });

  void it('exports every family per GPU, labelled gpu_uuid only, moving; one nvidia-smi, gone after', async () => {
    const smi = await fake();
    const s = await serve([INTERVAL], smi.dir);
    const first = await waitFor(
      () => scrape(s),
      (all) => FAKE_GPU_UUIDS.every((u) => value(all, 'nv_energy_consumption', u) !== undefined),
    );
    for (const uuid of FAKE_GPU_UUIDS) {
      for (const name of GPU_FAMILIES) {
        if (name === 'nv_gpu_power_limit' && uuid === FAKE_GPU_UUIDS[1]) continue;
        assert.notEqual(value(first, name, uuid), undefined, `${name} for ${uuid}`);
      }
    }
    // The fake's second GPU reports power.limit as [N/A]: no series, rather than a made-up 0.
    assert.equal(value(first, 'nv_gpu_power_limit', FAKE_GPU_UUIDS[1]), undefined);
    for (const x of gpuSamples(first)) {
      assert.match(x.labels, /^gpu_uuid="GPU-[0-9a-f-]+"$/, `${x.name} has gpu_uuid only`);
    }
    const [a] = FAKE_GPU_UUIDS;
    assert.equal(value(first, 'nv_gpu_memory_total_bytes', a), FAKE_MEMORY_TOTAL_MIB * 1024 * 1024);
    assert.equal(value(first, 'nv_gpu_power_limit', a), 700);
    const util = value(first, 'nv_gpu_utilization', a)!;
    assert.ok(util >= 0 && util <= 1, `utilization ${util} is a fraction`);
    // nv_energy_consumption counts from the server's start, not the driver's (5000 J in the fake).
    assert.ok(value(first, 'nv_energy_consumption', a)! < 1000);

    const later = await waitFor(
      () => scrape(s),
      (all) =>
        value(all, 'nv_energy_consumption', a)! > value(first, 'nv_energy_consumption', a)! &&
        value(all, 'nv_gpu_memory_used_bytes', a) !== value(first, 'nv_gpu_memory_used_bytes', a),
    );
    assert.ok(
      value(later, 'nv_energy_consumption', a)! > value(first, 'nv_energy_consumption', a)!,
    );
    assert.notEqual(
      value(later, 'nv_gpu_power_usage', a),
      value(first, 'nv_gpu_power_usage', a),
      'power usage moves',
    );

    // Many scrapes, one process: the query runs in a loop (-lms), not once per scrape.
    const starts = await smi.starts();
    assert.equal(starts.length, 1, JSON.stringify(starts));
    assert.deepEqual(starts[0]?.args, [
      '--query-gpu=uuid,utilization.gpu,memory.total,memory.used,power.draw,power.limit,total_energy_consumption',
      '--format=csv,noheader,nounits',
      '-lms',
      '100',
    ]);
    const pid = starts[0]!.pid;
    assert.ok(processExists(pid));
    assert.equal(await stop(s), 0);
    assert.equal(processExists(pid), false, 'nvidia-smi stopped with the server');
    assert.deepEqual(warnings(s.lines), []);
  });

  void it('shows no GPU series and logs no error where nvidia-smi does not exist', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'infernode-no-smi-'));
    temps.push(empty);
    const s = await serve([INTERVAL], empty);
    await logged(s.lines, 'nvidia-smi not found');
    // Several intervals: no retry, so no second line.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(gpuSamples(await scrape(s)), []);
    assert.equal(s.lines.filter((l) => l.includes('nvidia-smi')).length, 1, s.lines.join('\n'));
    assert.deepEqual(warnings(s.lines), []);
    assert.equal(await stop(s), 0);
  });

  void it('--allow-gpu-metrics=false: no GPU families, nvidia-smi never started', async () => {
    const smi = await fake();
    const s = await serve([INTERVAL, '--allow-gpu-metrics=false'], smi.dir);
    await new Promise((r) => setTimeout(r, 500));
    const text = await (await fetch(`${s.metricsBase}/metrics`)).text();
    assert.doesNotMatch(text, /nv_gpu_|nv_energy_/);
    assert.deepEqual(await smi.starts(), []);
    assert.equal(await stop(s), 0);
  });

  void it('without total_energy_consumption (an old driver): restarts without it, integrates power', async () => {
    const smi = await fake({ noEnergyField: true });
    const s = await serve([INTERVAL], smi.dir);
    const [a] = FAKE_GPU_UUIDS;
    const first = await waitFor(
      () => scrape(s),
      (all) => (value(all, 'nv_energy_consumption', a) ?? 0) > 0,
    );
    const joules = value(first, 'nv_energy_consumption', a)!;
    assert.ok(joules > 0, 'energy integrated from power.draw');
    const later = await waitFor(
      () => scrape(s),
      (all) => value(all, 'nv_energy_consumption', a)! > joules,
    );
    assert.ok(value(later, 'nv_energy_consumption', a)! > joules);
    assert.notEqual(value(later, 'nv_gpu_power_usage', a), undefined);
    const starts = await smi.starts();
    assert.equal(starts.length, 2, JSON.stringify(starts));
    assert.match(starts[0]!.args[0]!, /,total_energy_consumption$/);
    assert.equal(
      starts[1]!.args[0],
      '--query-gpu=uuid,utilization.gpu,memory.total,memory.used,power.draw,power.limit',
    );
    await logged(s.lines, 'does not know total_energy_consumption');
    assert.deepEqual(warnings(s.lines), []);
    assert.equal(await stop(s), 0);
    assert.equal(processExists(starts[1]!.pid), false);
  });
});
