// The shared-memory leak check (issue 28): a spawned infernode with --allow-client-shm=true runs N
// cycles of register a /dev/shm region -> infer `simple` with both inputs and one output in the
// region -> unregister, and prints the server's RSS and open fd count every `--every` cycles. Flat
// fd counts and an RSS that stops growing after warm-up mean nothing leaks. Too slow for CI at the
// default 10,000 cycles; test/integration/shared-memory/tensors.test.ts runs 200 and checks fds.
// `--protocol ws|grpc` runs the cycles through the TypeScript client over that transport instead
// (registration, infer and unregistration all on it: the WebSocket's shm_* frames, gRPC's RPCs).
//
// The samples are published as bench/results/shm-leak-<protocol>.json with a section of
// bench/RESULTS.md, unless --no-publish is given.
//
//   node dist/bench/shm-leak.js [--cycles 10000] [--every 1000] [--protocol http|ws|grpc]
//                               [--no-publish]

import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { InferenceClient, regionInput } from 'infernode/client';
import { machineInfo } from './measure/machine-info.js';
import { processMemory } from './measure/process-memory.js';
import { DEFAULT_MODEL_REPOSITORY } from './paths.js';
import { publishShmLeak } from './report/publish.js';
import { SHM_LEAK_SCHEMA, type LeakSample } from './shm/shm-leak-result.js';
import { startInfernode } from './targets/server-process.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1`);
  return n;
}

const protocolAt = process.argv.indexOf('--protocol');
const protocol = protocolAt === -1 ? 'http' : process.argv[protocolAt + 1];
if (protocol !== 'http' && protocol !== 'ws' && protocol !== 'grpc') {
  throw new Error('--protocol must be http, ws or grpc');
}
const cycles = flag('cycles', 10_000);
const every = flag('every', 1000);
const key = `/infernode-shm-leak-${process.pid}`;
const file = `/dev/shm${key}`;
const A = Int32Array.from({ length: 16 }, (_, i) => i);
const B = Int32Array.from({ length: 16 }, (_, i) => 2 * i);
// INPUT0 at 0, INPUT1 at 64, OUTPUT0 written at 128.
writeFileSync(
  file,
  Buffer.concat([Buffer.from(A.buffer), Buffer.from(B.buffer), Buffer.alloc(64)]),
);

const server = await startInfernode(DEFAULT_MODEL_REPOSITORY, [
  '--model-control-mode=explicit',
  '--load-model=simple',
  '--allow-client-shm=true',
]);
const post = async (path: string, body: unknown): Promise<void> => {
  const res = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
};
const region = (offset: number) => ({
  shared_memory_region: 'leak',
  shared_memory_byte_size: 64,
  shared_memory_offset: offset,
});
const samples: LeakSample[] = [];
const startedAt = new Date().toISOString();
const sample = (cycle: number): void => {
  const mem = processMemory(server.pid);
  const fds = readdirSync(`/proc/${server.pid}/fd`).length;
  const mib = (b: number | undefined) => ((b ?? 0) / 2 ** 20).toFixed(1);
  samples.push({ cycle, rssBytes: mem?.rssBytes ?? 0, peakRssBytes: mem?.peakRssBytes ?? 0, fds });
  console.log(
    `cycle ${String(cycle).padStart(6)}  rss ${mib(mem?.rssBytes)} MiB  peak ${mib(mem?.peakRssBytes)} MiB  fds ${fds}`,
  );
};

/** One cycle through the client over `protocol` (ws or grpc). */
async function clientCycle(client: InferenceClient): Promise<void> {
  await client.registerSystemSharedMemory('leak', key, 192);
  const ref = (offset: number) => ({ region: 'leak', byteSize: 64, offset });
  await client.infer(
    'simple',
    [
      regionInput('INPUT0', 'INT32', [1, 16], ref(0)),
      regionInput('INPUT1', 'INT32', [1, 16], ref(64)),
    ],
    { outputRegions: { OUTPUT0: ref(128) } },
  );
  await client.unregisterSystemSharedMemory('leak');
}

const client =
  protocol === 'http'
    ? undefined
    : new InferenceClient({
        url: protocol === 'grpc' ? `${server.host}:${server.grpcPort ?? 0}` : server.base,
        protocol,
      });
console.log(`protocol ${protocol}, ${cycles} cycles`);

try {
  sample(0);
  for (let i = 1; i <= cycles; i++) {
    if (client !== undefined) {
      await clientCycle(client);
      if (i % every === 0) sample(i);
      continue;
    }
    await post('/v2/systemsharedmemory/region/leak/register', { key, offset: 0, byte_size: 192 });
    await post('/v2/models/simple/infer', {
      inputs: [
        { name: 'INPUT0', datatype: 'INT32', shape: [1, 16], parameters: region(0) },
        { name: 'INPUT1', datatype: 'INT32', shape: [1, 16], parameters: region(64) },
      ],
      outputs: [{ name: 'OUTPUT0', parameters: region(128) }],
    });
    await post('/v2/systemsharedmemory/region/leak/unregister', {});
    if (i % every === 0) sample(i);
  }
} finally {
  await client?.close();
  await server.stop();
  rmSync(file, { force: true });
}
if (!process.argv.includes('--no-publish')) {
  const published = await publishShmLeak({
    schema: SHM_LEAK_SCHEMA,
    command: ['node dist/bench/shm-leak.js', ...process.argv.slice(2)].join(' '),
    startedAt,
    machine: machineInfo(),
    protocol,
    cycles,
    every,
    samples,
  });
  for (const f of published) console.log(`wrote ${f}`);
}
