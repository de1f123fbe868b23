// A stand-in `nvidia-smi` for tests of the GPU metrics: an executable written into a temp folder
// (removed when the test process exits) that a test puts first on the server's PATH. It answers the one query the server runs
// (--query-gpu=<fields> --format=csv,noheader,nounits -lms <ms>) with a line per GPU every
// interval, its figures changing each time, and notes each start (pid and argv) in a file.

import { readFileSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './temp-dir.js';

/** The fake GPUs' uuids; the second reports no power limit ("[N/A]"). */
export const FAKE_GPU_UUIDS = [
  'GPU-11111111-2222-3333-4444-555555555555',
  'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
] as const;

/** memory.total the fake reports, in MiB (an H100's 80 GB). */
export const FAKE_MEMORY_TOTAL_MIB = 81559;

export interface FakeNvidiaSmi {
  /** The folder holding `nvidia-smi`: put it first on PATH. */
  readonly dir: string;
  /** One entry per start: its pid and argv. */
  starts(): Promise<{ pid: number; args: string[] }[]>;
}

export interface FakeOptions {
  /**
   * As a driver too old for total_energy_consumption: a query with that field prints nvidia-smi's
   * refusal and exits 2.
   */
  readonly noEnergyField?: boolean;
}

export async function fakeNvidiaSmi(opts: FakeOptions = {}): Promise<FakeNvidiaSmi> {
  const dir = await tempDir('infernode-fake-smi-');
  const log = path.join(dir, 'starts.jsonl');
  // CommonJS (no package.json above a temp folder), run by this very node: PATH may hold nothing
  // else.
  const script = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, args }) + '\\n');
const query = (args.find((a) => a.startsWith('--query-gpu=')) || '').slice('--query-gpu='.length);
const fields = query.split(',');
if (${opts.noEnergyField === true} && fields.includes('total_energy_consumption')) {
  console.log('Field "total_energy_consumption" is not a valid field to query.');
  console.log('');
  console.log('Try \\'nvidia-smi --help-query-gpu\\' for more information.');
  process.exit(2);
}
// As a C program (node ignores SIGPIPE, nvidia-smi does not): a closed pipe ends it.
process.stdout.on('error', () => process.exit(141));
const ms = Number(args[args.indexOf('-lms') + 1]);
const uuids = ${JSON.stringify(FAKE_GPU_UUIDS)};
let t = 0;
function tick() {
  t++;
  let out = '';
  uuids.forEach((uuid, i) => {
    const v = {
      uuid,
      'utilization.gpu': String((t * 7 + i * 31) % 101),
      'memory.total': '${FAKE_MEMORY_TOTAL_MIB}',
      'memory.used': String(1000 + t * 3 + i),
      'power.draw': (100 + t + i * 10 + 0.25).toFixed(2),
      'power.limit': i === 1 ? '[N/A]' : '700.00',
      total_energy_consumption: String(5000000 + t * 2500 + i),
    };
    out += fields.map((f) => (f in v ? v[f] : '[Not Supported]')).join(', ') + '\\n';
  });
  process.stdout.write(out);
}
tick();
setInterval(tick, ms);
`;
  const file = path.join(dir, 'nvidia-smi');
  await writeFile(file, script);
  await chmod(file, 0o755);
  return {
    dir,
    starts: async () => {
      const text = await readFile(log, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { pid: number; args: string[] });
    },
  };
}

/**
 * Whether process `pid` still runs: signal 0 checks without sending anything, and a zombie (ended,
 * not yet reaped: an orphan under a PID 1 that does not reap) counts as gone.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
