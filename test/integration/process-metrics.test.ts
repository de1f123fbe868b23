// Host, process and per-thread metrics on the real `infernode` command: Triton's nv_cpu_* (on by
// default, gone with --allow-cpu-metrics=false), process_resident_memory_bytes, and one
// infernode_thread_* series per live thread — the main thread, each front-end thread (where the
// front end can share its port here) and each worker of a loaded model — with sane values, the
// workers' series gone once their model unloads.

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { copyModel, tempRepository } from '../helpers/temp-repository.js';
import { waitFor } from '../helpers/wait-for.js';

interface Sample {
  readonly name: string;
  readonly labels: string;
  readonly value: number;
}

async function scrape(s: SpawnedServer): Promise<{ text: string; samples: Sample[] }> {
  const text = await (await fetch(`${s.metricsBase}/metrics`)).text();
  const samples = text.split('\n').flatMap((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    return m === null ? [] : [{ name: m[1] as string, labels: m[2] ?? '', value: Number(m[3]) }];
  });
  return { text, samples };
}

/** `thread` label -> value of the family `name`. */
function byThread(samples: readonly Sample[], name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    const m = /^thread="([^"]+)"$/.exec(s.labels);
    if (s.name === name && m !== null) out.set(m[1] as string, s.value);
  }
  return out;
}

const BODY = JSON.stringify({
  inputs: [
    {
      name: 'INPUT0',
      datatype: 'INT32',
      shape: [1, 16],
      data: Array.from({ length: 16 }, () => 1),
    },
    {
      name: 'INPUT1',
      datatype: 'INT32',
      shape: [1, 16],
      data: Array.from({ length: 16 }, () => 2),
    },
  ],
});

const WORKERS = ['worker-simple-1-simple_0_0', 'worker-simple-1-simple_0_1'];

void describe('process and thread metrics', () => {
  let repo: string;
  const servers: SpawnedServer[] = [];

  before(async () => {
    repo = await tempRepository();
    const dir = await copyModel(repo, 'simple');
    // Two instances: two worker threads, two series.
    const config = await readFile(path.join(dir, 'config.pbtxt'), 'utf8');
    await writeFile(
      path.join(dir, 'config.pbtxt'),
      config.replace(
        'instance_group [ { count: 1, kind: KIND_CPU } ]',
        'instance_group [ { count: 2, kind: KIND_CPU } ]',
      ),
    );
  });
  after(async () => {
    for (const s of servers) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await rm(repo, { recursive: true, force: true });
  });

  void it('exports nv_cpu_*, RSS and a series per live thread, and drops a model’s workers at unload', async () => {
    const s = await spawnServer([
      `--model-repository=${repo}`,
      '--model-control-mode=explicit',
      '--load-model=simple',
      '--metrics-interval-ms=100',
      '--http-thread-count=2',
    ]);
    servers.push(s);
    const threaded = s.lines.some((l) => l.includes(' on 2 threads'));
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${s.base}/v2/models/simple/infer`, { method: 'POST', body: BODY });
      assert.equal(res.status, 200, await res.text());
    }
    const expected = ['main', ...WORKERS, ...(threaded ? ['frontend-1'] : [])];
    // Every thread has reported once an interval has passed since the runs (a worker's heap comes
    // with its first reading, when it is ready).
    const { samples, text } = await waitFor(
      () => scrape(s),
      (r) => {
        const heap = byThread(r.samples, 'infernode_thread_heap_used_bytes');
        return expected.every((t) => heap.has(t));
      },
    );

    // Triton's host CPU families: one unlabelled series each.
    const one = (name: string): number => {
      const found = samples.filter((x) => x.name === name);
      assert.equal(found.length, 1, `${name}: one series\n${text}`);
      assert.equal(found[0]?.labels, '');
      return found[0]?.value as number;
    };
    const cpu = one('nv_cpu_utilization');
    assert.ok(cpu >= 0 && cpu <= 1, `nv_cpu_utilization ${cpu}`);
    const total = one('nv_cpu_memory_total_bytes');
    const used = one('nv_cpu_memory_used_bytes');
    assert.ok(total > 0 && used > 0 && used <= total, `memory used ${used} of ${total}`);
    assert.ok(one('process_resident_memory_bytes') > 10 * 1024 * 1024);

    const elu = byThread(samples, 'infernode_thread_event_loop_utilization');
    const delay = byThread(samples, 'infernode_thread_event_loop_delay_p99_seconds');
    const heap = byThread(samples, 'infernode_thread_heap_used_bytes');
    assert.deepEqual([...elu.keys()].sort(), [...expected].sort(), 'one series per live thread');
    for (const [thread, u] of elu) assert.ok(u >= 0 && u <= 1, `${thread}: utilization ${u}`);
    for (const [thread, h] of heap) assert.ok(h > 1024 * 1024, `${thread}: heap ${h}`);
    // Event-loop delay where an event loop turns: the main and front-end threads, not workers.
    assert.deepEqual(
      [...delay.keys()].sort(),
      expected.filter((t) => !t.startsWith('worker-')).sort(),
    );
    for (const [thread, d] of delay) assert.ok(d >= 0 && d < 10, `${thread}: delay p99 ${d}`);

    // Unloading the model ends its workers, and their series with them.
    const unload = await fetch(`${s.base}/v2/repository/models/simple/unload`, { method: 'POST' });
    assert.equal(unload.status, 200, await unload.text());
    const afterUnload = await waitFor(
      () => scrape(s),
      (r) =>
        ![...byThread(r.samples, 'infernode_thread_heap_used_bytes').keys()].some((t) =>
          t.startsWith('worker-'),
        ),
    );
    for (const family of [
      'infernode_thread_event_loop_utilization',
      'infernode_thread_heap_used_bytes',
    ]) {
      const threads = [...byThread(afterUnload.samples, family).keys()];
      assert.deepEqual(
        threads.filter((t) => t.startsWith('worker-')),
        [],
        `${family}: ${threads.join(',')}`,
      );
      assert.ok(threads.includes('main'));
    }
  });

  void it('has no nv_cpu_* family with --allow-cpu-metrics=false; the thread series stay', async () => {
    const s = await spawnServer([
      `--model-repository=${repo}`,
      '--model-control-mode=explicit',
      '--allow-cpu-metrics=false',
      '--metrics-interval-ms=100',
    ]);
    servers.push(s);
    const { text, samples } = await waitFor(
      () => scrape(s),
      (r) => byThread(r.samples, 'infernode_thread_event_loop_utilization').has('main'),
    );
    assert.ok(!text.includes('nv_cpu_'), text);
    assert.ok(byThread(samples, 'infernode_thread_event_loop_utilization').has('main'));
  });
});
