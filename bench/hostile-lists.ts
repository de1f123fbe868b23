// Oversized tensor lists (issue 33, defect 2): how long a fresh infernode takes to refuse a JSON
// body and a gRPC ModelInfer message that list far more inputs than MAX_TENSORS, how long
// /v2/health/live on another connection waits meanwhile, and the server's RSS growth. Prints one
// JSON line per case; nothing is published.
//
//   node dist/bench/cli.js hostile-lists [--json-inputs 900000] [--grpc-inputs 2500000]
//                                    [--front-end uws|node]

import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { commandLine } from './entry.js';
import { processMemory } from './measure/process-memory.js';
import { REPO_ROOT } from './paths.js';
import {
  grpcInferFrame,
  oversizedGrpcFrame,
  oversizedJsonBody,
  postInferBody,
  probeLive,
  type TimedAnswer,
} from './soak/oversized-lists.js';
import { startInfernode, type ServerProcess } from './targets/server-process.js';
import type { SubcommandModule } from './subcommands.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';

const MODEL = 'identity_fp32';
const MIB = 2 ** 20;

interface CaseResult {
  readonly case: string;
  readonly inputs: number;
  readonly bodyMiB: number;
  readonly status: string;
  readonly message: string;
  /** From the last byte sent to the answer's status. */
  readonly refuseMs: number;
  readonly liveMaxMs: number;
  readonly liveProbes: number;
  readonly rssGrowthMiB: number;
}

async function measure(
  server: ServerProcess,
  name: string,
  inputs: number,
  bytes: number,
  send: () => Promise<TimedAnswer>,
): Promise<CaseResult> {
  const before = processMemory(server.pid)?.rssBytes ?? 0;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, processMemory(server.pid)?.rssBytes ?? 0);
  }, 20);
  const probe = probeLive(server.base);
  await sleep(100);
  const answer = await send();
  const refuseMs = answer.ms;
  await sleep(100);
  const live = await probe.stop();
  clearInterval(sampler);
  return {
    case: name,
    inputs,
    bodyMiB: Math.round((bytes / MIB) * 10) / 10,
    status: answer.status,
    message: answer.message.slice(0, 120),
    refuseMs: Math.round(refuseMs),
    liveMaxMs: Math.round(live.maxMs),
    liveProbes: live.probes,
    rssGrowthMiB: Math.round((peak - before) / MIB),
  };
}

/** Every flag of `infernode-bench hostile-lists`: parsing and its --help read this table. */
export const FLAGS = {
  'json-inputs': {
    kind: 'string',
    default: '900000',
    help: 'Inputs listed in the oversized JSON body',
  },
  'grpc-inputs': {
    kind: 'string',
    default: '2500000',
    help: 'Inputs listed in the oversized gRPC message',
  },
  'front-end': { kind: 'string', default: 'uws', help: 'infernode --http-front-end: uws | node' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const repo = await mkdtemp(path.join(os.tmpdir(), 'hostile-lists-'));
  await cp(path.join(REPO_ROOT, 'test', 'fixtures', 'repository', MODEL), path.join(repo, MODEL), {
    recursive: true,
  });
  const server = await startInfernode(repo, [`--http-front-end=${values['front-end']}`]);
  try {
    console.log(JSON.stringify({ command: commandLine('hostile-lists', argv) }));
    const jsonInputs = Number(values['json-inputs']);
    const body = oversizedJsonBody(jsonInputs);
    console.log(
      JSON.stringify(
        await measure(server, 'json', jsonInputs, body.length, () =>
          postInferBody(server.base, MODEL, body),
        ),
      ),
    );
    const grpcInputs = Number(values['grpc-inputs']);
    const message = oversizedGrpcFrame(grpcInputs, MODEL);
    const port = server.grpcPort ?? 0;
    console.log(
      JSON.stringify(
        await measure(server, 'grpc', grpcInputs, message.length, () =>
          grpcInferFrame(`127.0.0.1:${port}`, message),
        ),
      ),
    );
  } finally {
    await server.stop();
    await rm(repo, { recursive: true, force: true });
  }
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
