#!/usr/bin/env node
// The ModelInfer codecs side by side (issue 26, item 5): ModelInferRequest decoding and
// ModelInferResponse / ModelStreamInferResponse encoding by the hand-written codec the server
// uses, by protobufjs static code generated from the same protos, and by proto-loader, on fixed
// messages from an `mlp` row to 64 MiB of raw FP32. Per message and codec: ns/op (median of the
// rounds, with their spread), ops/s, bytes allocated per op, and whether raw tensor bytes come
// back as views of the message or as copies. No server runs.
//   node dist/bench/cli.js grpc-codec [--rounds N] [--round-ms MS] [--out DIR] [--only TEXT]
// Writes grpc-codec.json and grpc-codec.md into DIR (bench/out/grpc-codec/ unless given; the
// published run is `--out bench/results`).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ModelInferResponse, ModelStreamInferResponse } from 'infernode/tooling';
import {
  generatedAdaptedCodec,
  generatedCodec,
  generatedSharedCodec,
  handWritten,
  loadGenerated,
  protoLoaderCodec,
  type InferCodec,
} from './grpc-codec/codecs.js';
import { commandLine } from './entry.js';
import { machineInfo, type MachineInfo } from './measure/machine-info.js';
import { formatted } from './report/publish.js';
import { HELP_FLAG, parseFlags, type FlagTable } from './options/flag-parser.js';
import { median } from './measure/median.js';
import { UsageError } from './options/usage-error.js';
import { REPO_ROOT } from './paths.js';
import type { SubcommandModule } from './subcommands.js';

const SCHEMA = 'infernode-bench-grpc-codec/1';

// ---- the messages ----------------------------------------------------------------------------

const MiB = 1024 * 1024;

/** FP32 values 0, 0.5, 1, ... as little-endian bytes (no two rows alike, nothing to compress). */
function fp32Bytes(count: number): Buffer {
  const b = Buffer.allocUnsafe(count * 4);
  for (let i = 0; i < count; i += 1) b.writeFloatLE((i % 4096) * 0.5, i * 4);
  return b;
}

/** 64 strings of 8 to 71 bytes, and the same as a raw BYTES tensor (4-byte length prefixes). */
const STRINGS = Array.from({ length: 64 }, (_, i) => Buffer.from(`text ${i} `.padEnd(8 + i, 'x')));
const STRINGS_RAW = Buffer.concat(
  STRINGS.flatMap((s) => {
    const len = Buffer.alloc(4);
    len.writeUInt32LE(s.length);
    return [len, s];
  }),
);

interface RequestCase {
  readonly name: string;
  readonly what: string;
  /** The message as proto-loader's object, serialized once by proto-loader. */
  readonly message: object;
  /** Bytes of tensor data in the message (what a copy of the tensors costs). */
  readonly tensorBytes: number;
}

function requestCases(): RequestCase[] {
  const mlpRow = fp32Bytes(784);
  const rawCase = (name: string, what: string, elements: number): RequestCase => ({
    name,
    what,
    message: {
      model_name: 'mlp',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, elements] }],
      raw_input_contents: [fp32Bytes(elements)],
    },
    tensorBytes: elements * 4,
  });
  return [
    {
      name: 'mlp raw',
      what: 'FP32 [1,784] in raw_input_contents (what the load generator sends)',
      message: {
        model_name: 'mlp',
        inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 784] }],
        raw_input_contents: [mlpRow],
      },
      tensorBytes: mlpRow.length,
    },
    {
      name: 'mlp contents',
      what: 'FP32 [1,784] in fp32_contents',
      message: {
        model_name: 'mlp',
        inputs: [
          {
            name: 'INPUT0',
            datatype: 'FP32',
            shape: [1, 784],
            contents: {
              fp32_contents: Array.from({ length: 784 }, (_, i) => mlpRow.readFloatLE(i * 4)),
            },
          },
        ],
      },
      tensorBytes: mlpRow.length,
    },
    {
      name: 'bytes raw',
      what: `BYTES [1,64] in raw_input_contents (${STRINGS_RAW.length} B)`,
      message: {
        model_name: 'echo',
        id: 'req-1',
        parameters: { priority: { int64_param: '1' } },
        inputs: [{ name: 'TEXT', datatype: 'BYTES', shape: [1, 64] }],
        outputs: [{ name: 'OUT' }],
        raw_input_contents: [STRINGS_RAW],
      },
      tensorBytes: STRINGS_RAW.length,
    },
    {
      name: 'bytes contents',
      what: 'BYTES [1,64] in bytes_contents',
      message: {
        model_name: 'echo',
        id: 'req-1',
        parameters: { priority: { int64_param: '1' } },
        inputs: [
          {
            name: 'TEXT',
            datatype: 'BYTES',
            shape: [1, 64],
            contents: { bytes_contents: STRINGS },
          },
        ],
        outputs: [{ name: 'OUT' }],
      },
      tensorBytes: STRINGS.reduce((n, s) => n + s.length, 0),
    },
    rawCase('raw 4 MiB', 'FP32 [1,1048576] in raw_input_contents', MiB),
    rawCase('raw 64 MiB', 'FP32 [1,16777216] in raw_input_contents', 16 * MiB),
  ];
}

interface ResponseCase {
  readonly name: string;
  readonly what: string;
  readonly stream: boolean;
  readonly response: ModelInferResponse;
  readonly tensorBytes: number;
}

function responseCases(): ResponseCase[] {
  const response = (
    name: string,
    datatype: string,
    shape: number[],
    data: Uint8Array,
  ): ModelInferResponse => ({
    model_name: name,
    model_version: '1',
    id: '',
    parameters: {},
    outputs: [{ name: 'OUTPUT0', datatype, shape, parameters: {} }],
    // Output bytes are views of shared memory in the server (infer-codec.ts copies them once).
    raw_output_contents: [data],
  });
  const shared = (b: Uint8Array): Uint8Array => {
    const s = new Uint8Array(new SharedArrayBuffer(b.byteLength));
    s.set(b);
    return s;
  };
  const mlp = response('mlp', 'FP32', [1, 10], shared(fp32Bytes(10)));
  return [
    { name: 'mlp', what: 'FP32 [1,10]', stream: false, response: mlp, tensorBytes: 40 },
    {
      name: 'mlp stream',
      what: 'FP32 [1,10] as a ModelStreamInferResponse, id set',
      stream: true,
      response: { ...mlp, id: '0000002a' },
      tensorBytes: 40,
    },
    {
      name: 'bytes',
      what: `BYTES [1,64] (${STRINGS_RAW.length} B)`,
      stream: false,
      response: response('echo', 'BYTES', [1, 64], shared(STRINGS_RAW)),
      tensorBytes: STRINGS_RAW.length,
    },
    {
      name: 'raw 4 MiB',
      what: 'FP32 [1,1048576]',
      stream: false,
      response: response('big', 'FP32', [1, MiB], shared(fp32Bytes(MiB))),
      tensorBytes: 4 * MiB,
    },
    {
      name: 'raw 64 MiB',
      what: 'FP32 [1,16777216]',
      stream: false,
      response: response('big', 'FP32', [1, 16 * MiB], shared(fp32Bytes(16 * MiB))),
      tensorBytes: 64 * MiB,
    },
  ];
}

// ---- measuring -------------------------------------------------------------------------------

/** Where results go so the optimizer cannot drop the work. */
let sink: unknown;

const gc = ((): (() => void) => {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** Runs `op` until `ms` have passed, in batches sized to ~1 ms; returns ns per op. */
function timed(op: () => unknown, ms: number, batch: number): number {
  const until = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  const start = process.hrtime.bigint();
  let ops = 0;
  let now = start;
  do {
    for (let i = 0; i < batch; i += 1) sink = op();
    ops += batch;
    now = process.hrtime.bigint();
  } while (now < until);
  return Number(now - start) / ops;
}

/** Ops per ~1 ms batch, from a first run. */
function calibrate(op: () => unknown): number {
  const start = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() - start < 5_000_000n) {
    sink = op();
    n += 1;
  }
  return Math.max(1, Math.round(n / 5));
}

/**
 * Bytes allocated per op (JS heap plus ArrayBuffer backing stores, which hold Buffers) over a burst
 * of up to `most` ops that no garbage collection interrupts: a collection inside it frees memory
 * and the count would be short, so a burst with one is measured again at half the length. Null
 * when even one op collects (allocating a large buffer can start a collection). The results are
 * not kept: a burst of 64 MiB answers would otherwise hold them all.
 */
function allocatedPerOp(op: () => unknown, most: number): number | null {
  for (let n = most; n >= 1; n = Math.floor(n / 2)) {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      gc();
      const profiler = new v8.GCProfiler();
      profiler.start();
      const before = process.memoryUsage();
      for (let i = 0; i < n; i += 1) sink = op();
      const after = process.memoryUsage();
      const collections = profiler.stop()?.statistics.length ?? 0;
      if (collections === 0) {
        const heap = after.heapUsed - before.heapUsed;
        const buffers = after.arrayBuffers - before.arrayBuffers;
        return Math.max(0, Math.round((heap + buffers) / n));
      }
    }
  }
  return null;
}

interface Cell {
  readonly message: string;
  readonly codec: string;
  readonly op: () => unknown;
  /** For decoding: whether the raw tensor bytes decode as views of the message. */
  readonly rawView?: () => boolean | null;
}

interface CellResult {
  readonly message: string;
  readonly codec: string;
  readonly nsPerOp: { readonly median: number; readonly min: number; readonly max: number };
  readonly opsPerSecond: number;
  /** median / the hand-written codec's median on the same message. */
  readonly vsHandWritten: number;
  readonly allocatedBytesPerOp: number | null;
  readonly rawTensorBytes?: 'view' | 'copy' | 'none';
}

/**
 * Each message's codecs are measured in turn within every round (hand, generated, ..., hand, ...),
 * so a change in the machine's load during the run falls on all of them alike.
 */
function measure(
  cells: readonly Cell[],
  rounds: number,
  roundMs: number,
  log: (s: string) => void,
): CellResult[] {
  const byMessage = new Map<string, Cell[]>();
  for (const c of cells) byMessage.set(c.message, [...(byMessage.get(c.message) ?? []), c]);
  const results: CellResult[] = [];
  for (const [message, group] of byMessage) {
    const batches = group.map((c) => {
      // Warm-up: the optimizing compiler settles before anything counts.
      timed(c.op, roundMs, calibrate(c.op));
      return calibrate(c.op);
    });
    const samples = group.map((): number[] => []);
    for (let r = 0; r < rounds; r += 1) {
      group.forEach((c, i) => samples[i]?.push(timed(c.op, roundMs, batches[i] as number)));
    }
    const hand = median(samples[0] ?? []);
    group.forEach((c, i) => {
      const ns = samples[i] ?? [];
      const med = median(ns);
      const view = c.rawView?.();
      const result: CellResult = {
        message,
        codec: c.codec,
        nsPerOp: { median: med, min: Math.min(...ns), max: Math.max(...ns) },
        opsPerSecond: 1e9 / med,
        vsHandWritten: med / hand,
        // About 20 ms of ops, at most 256 of them.
        allocatedBytesPerOp: allocatedPerOp(
          c.op,
          Math.max(1, Math.min(256, Math.round(20e6 / med))),
        ),
        ...(view === undefined
          ? {}
          : { rawTensorBytes: view === null ? 'none' : view ? 'view' : 'copy' }),
      };
      results.push(result);
      log(
        `${message.padEnd(24)} ${c.codec.padEnd(22)} ${fmtNs(med).padStart(10)}/op  ` +
          `(${fmtNs(result.nsPerOp.min)}–${fmtNs(result.nsPerOp.max)})  ${result.vsHandWritten.toFixed(2)}×`,
      );
    });
  }
  return results;
}

// ---- the run ---------------------------------------------------------------------------------

/** Whether the first raw tensor of a decoded request shares memory with the message. */
function rawView(decoded: unknown, bytes: Buffer): boolean | null {
  const raw = (decoded as { raw_input_contents?: Uint8Array[] }).raw_input_contents?.[0];
  if (raw === undefined) return null;
  return raw.buffer === bytes.buffer;
}

function cellsFor(codecs: {
  readonly decode: readonly [string, InferCodec][];
  readonly encode: readonly [string, InferCodec][];
}): Cell[] {
  const pl = protoLoaderCodec();
  const cells: Cell[] = [];
  for (const c of requestCases()) {
    const bytes = pl.encodeRequest(c.message);
    for (const [codec, k] of codecs.decode) {
      cells.push({
        message: `decode ${c.name}`,
        codec,
        op: () => k.decodeRequest(bytes),
        rawView: () => rawView(k.decodeRequest(bytes), bytes),
      });
    }
  }
  for (const c of responseCases()) {
    const answer: ModelStreamInferResponse = { error_message: '', infer_response: c.response };
    for (const [codec, k] of codecs.encode) {
      cells.push({
        message: `encode ${c.name}`,
        codec,
        op: c.stream ? () => k.encodeStreamResponse(answer) : () => k.encodeResponse(c.response),
      });
    }
  }
  return cells;
}

/** What each row's message is, for the report. */
function messageTable(): {
  readonly message: string;
  readonly what: string;
  readonly bytes: number;
}[] {
  const pl = protoLoaderCodec();
  return [
    ...requestCases().map((c) => ({
      message: `decode ${c.name}`,
      what: c.what,
      bytes: pl.encodeRequest(c.message).length,
    })),
    ...responseCases().map((c) => ({
      message: `encode ${c.name}`,
      what: c.what,
      bytes: (c.stream
        ? handWritten.encodeStreamResponse({ error_message: '', infer_response: c.response })
        : handWritten.encodeResponse(c.response)
      ).length,
    })),
  ];
}

interface CodecBenchResult {
  readonly schema: string;
  readonly command: string;
  readonly date: string;
  readonly machine: MachineInfo;
  readonly loadAverage: readonly number[];
  readonly protobufjs: string;
  readonly rounds: number;
  readonly roundMs: number;
  readonly messages: ReturnType<typeof messageTable>;
  readonly results: readonly CellResult[];
}

function fmtNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

function fmtBytes(b: number | null): string {
  if (b === null) return 'n/a';
  if (b >= MiB) return `${(b / MiB).toFixed(1)} MiB`;
  if (b >= 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${b} B`;
}

function fmtOps(ops: number): string {
  return ops >= 1000 ? Math.round(ops).toLocaleString('en-US') : ops.toFixed(1);
}

export function renderMarkdown(r: CodecBenchResult): string {
  const m = r.machine;
  const lines = [
    '# ModelInfer codecs: hand-written against generated',
    '',
    `Produced by \`${r.command}\` (${r.date.slice(0, 10)}) on ${m.cpuModel} × ${m.cpus}, ` +
      `load average ${r.loadAverage.map((x) => x.toFixed(1)).join(' / ')} at the start; ` +
      `Node ${m.node}, protobufjs ${r.protobufjs}; infernode at ${m.commit.slice(0, 12)}` +
      `${m.dirty ? ' (uncommitted changes)' : ''}. ${r.rounds} rounds of ${r.roundMs} ms per cell ` +
      'after a warm-up; ns/op is the median round, the spread the fastest and slowest round.',
    '',
    'Codecs: **hand-written** is `src/grpc/infer-request-wire.ts` / `infer-response-wire.ts`; ' +
      '**generated** is protobufjs static code (`bench/grpc-codec/generated/`, from ' +
      '`scripts/generate-grpc-messages.ts`) as it comes: its message classes, int64 as `Long`; ' +
      '**generated + adapt** is that decode followed by the conversion to the object ' +
      '`infer-codec.ts` reads (what the hand-written decoder returns); **generated, finish(true)** ' +
      "encodes into protobufjs's growing buffer and returns a view of it, without `finish()`'s " +
      'copy into an exact-size buffer; **proto-loader** is ' +
      'protobufjs reflection with `toObject`/`fromObject`, what the hand-written codec replaced.',
    '',
    '| message | what | bytes |',
    '| --- | --- | --- |',
    ...r.messages.map((x) => `| ${x.message} | ${x.what} | ${x.bytes.toLocaleString('en-US')} |`),
    '',
    '| message | codec | ns/op | spread | ops/s | × hand-written | allocated/op | raw tensor |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.results.map(
      (x) =>
        `| ${x.message} | ${x.codec} | ${fmtNs(x.nsPerOp.median)} | ` +
        `${fmtNs(x.nsPerOp.min)}–${fmtNs(x.nsPerOp.max)} | ${fmtOps(x.opsPerSecond)} | ` +
        `${x.vsHandWritten.toFixed(2)} | ${fmtBytes(x.allocatedBytesPerOp)} | ` +
        `${x.rawTensorBytes ?? ''} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** Every flag of `infernode-bench grpc-codec`: parsing and its --help read this table. */
export const FLAGS = {
  rounds: { kind: 'uint', default: '7', help: 'Timed rounds per cell; the median is reported' },
  'round-ms': { kind: 'number', default: '200', help: 'Length of one round, ms' },
  out: {
    kind: 'string',
    default: 'bench/out/grpc-codec',
    help: 'Where grpc-codec.json and grpc-codec.md go',
  },
  only: { kind: 'string', help: 'Only the messages whose name contains this text (mlp, encode)' },
  help: HELP_FLAG,
} as const satisfies FlagTable;

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  const rounds = Number(values.rounds);
  const roundMs = Number(values['round-ms']);
  if (!(rounds >= 1) || !(roundMs > 0)) {
    throw new UsageError(`--rounds: expected >= 1, --round-ms: > 0; got ${rounds}, ${roundMs}`);
  }
  const loadAverage = os.loadavg();
  const generated = await loadGenerated();
  const hand: [string, InferCodec] = ['hand-written', handWritten];
  const gen: [string, InferCodec] = ['generated', generatedCodec(generated)];
  const pl: [string, InferCodec] = ['proto-loader', protoLoaderCodec()];
  const cells = cellsFor({
    decode: [hand, gen, ['generated + adapt', generatedAdaptedCodec(generated)], pl],
    encode: [hand, gen, ['generated, finish(true)', generatedSharedCodec(generated)], pl],
  }).filter((c) => values.only === undefined || c.message.includes(values.only));
  const log = (s: string): void => void process.stderr.write(`${s}\n`);
  const results = measure(cells, rounds, roundMs, log);
  void sink; // read once, so the compiler keeps the stores the measured ops make to it
  const pbjsVersion = (
    JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'node_modules', 'protobufjs', 'package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  const result: CodecBenchResult = {
    schema: SCHEMA,
    command: commandLine('grpc-codec', argv),
    date: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage,
    protobufjs: pbjsVersion,
    rounds,
    roundMs,
    messages: messageTable().filter((m) => results.some((x) => x.message === m.message)),
    results,
  };
  const out = path.resolve(REPO_ROOT, values.out ?? 'bench/out/grpc-codec');
  mkdirSync(out, { recursive: true });
  const json = path.join(out, 'grpc-codec.json');
  const md = path.join(out, 'grpc-codec.md');
  writeFileSync(json, await formatted(json, `${JSON.stringify(result, null, 2)}\n`));
  writeFileSync(md, await formatted(md, renderMarkdown(result)));
  process.stdout.write(
    `wrote ${path.relative(process.cwd(), json)} and ${path.relative(process.cwd(), md)}\n`,
  );
  return 0;
}

export const command: SubcommandModule = { flags: FLAGS, main };
