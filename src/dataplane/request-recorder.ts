// --record-requests: a sampled share of the inference requests the server answers, written to disk
// as validation samples (`infernode validate --requests <dir>/<model>`). Each recorded request is
// one file, `<dir>/<model>/<version>-<seq>.json`: a KServe v2 JSON inference request (`inputs`,
// each with name, datatype, shape and flat data), exactly what a client could POST again, plus
// `recorded_response` (model_name, model_version and the `outputs` the server answered with).
// Model names and tensors only: never headers, parameters, request ids or client addresses.
//
// Safe under load: the sampling decision is one random draw; only a sampled request is copied
// (inputs before it is queued, since a lone large request's input buffer may move to its worker;
// outputs once answered); a byte budget bounds what is ever written and a bounded queue what waits
// for the disk; the writer is one async loop off the request path; every skip is counted.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResponseOutput } from '../protocol/inference-request.js';
import type { ValidatedInput } from '../scheduler/validated-request.js';
import { BytesWalker } from '../tensor/bytes-layout.js';
import { DATATYPE_TABLE, numericArray, type Datatype } from '../tensor/datatypes.js';
import { bf16BitsToNumber, halfBitsToNumber } from '../tensor/half.js';

export interface RecorderOptions {
  readonly dir: string;
  /** Share of answered requests recorded, 0..1. */
  readonly rate: number;
  /** Tensor bytes recorded at most over the process's life; past it nothing more is recorded. */
  readonly maxBytes: number;
  /** Recordings waiting for the disk at most; more are dropped (and counted). */
  readonly maxPending?: number;
  /** Injected for tests; Math.random by default. */
  readonly random?: () => number;
}

export interface RecorderStats {
  readonly recorded: number;
  readonly recordedBytes: number;
  readonly droppedBudget: number;
  readonly droppedQueue: number;
  readonly failed: number;
}

interface RawTensor {
  readonly name: string;
  readonly datatype: Datatype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

/** A sampled request's inputs, copied before it runs; `finish` adds the answer. */
export interface Recording {
  finish(model: string, version: number, outputs: readonly ResponseOutput[]): void;
}

const DEFAULT_MAX_PENDING = 64;

export class RequestRecorder {
  private seq = 0;
  private committedBytes = 0;
  private readonly queue: { file: string; text: () => string }[] = [];
  private writing: Promise<void> | undefined;
  private readonly counts = { recorded: 0, droppedBudget: 0, droppedQueue: 0, failed: 0 };
  private readonly random: () => number;
  private readonly madeDirs = new Set<string>();

  constructor(private readonly options: RecorderOptions) {
    this.random = options.random ?? Math.random;
  }

  /** A recording of this request's inputs when it is sampled and the budget allows; else undefined. */
  sample(inputs: readonly ValidatedInput[]): Recording | undefined {
    if (this.options.rate <= 0 || this.random() >= this.options.rate) return undefined;
    const inputBytes = inputs.reduce((n, i) => n + i.byteLength, 0);
    if (this.committedBytes + inputBytes > this.options.maxBytes) {
      this.counts.droppedBudget++;
      return undefined;
    }
    if (this.queue.length >= (this.options.maxPending ?? DEFAULT_MAX_PENDING)) {
      this.counts.droppedQueue++;
      return undefined;
    }
    const copied: RawTensor[] = inputs.map((i) => {
      const bytes = new Uint8Array(i.byteLength);
      i.write(bytes);
      return { name: i.name, datatype: i.datatype, shape: i.requestShape, bytes };
    });
    return {
      finish: (model, version, outputs) => {
        // Outputs written to a client's shared-memory region have no data here: not recorded.
        const answered = outputs
          .filter((o) => o.inSharedMemory !== true)
          .map((o) => ({
            name: o.name,
            datatype: o.datatype,
            shape: o.shape,
            bytes: o.data.slice(),
          }));
        const bytes = inputBytes + answered.reduce((n, o) => n + o.bytes.byteLength, 0);
        if (this.committedBytes + bytes > this.options.maxBytes) {
          this.counts.droppedBudget++;
          return;
        }
        this.committedBytes += bytes;
        const file = path.join(
          this.options.dir,
          model,
          `${version}-${String(this.seq++).padStart(8, '0')}.json`,
        );
        this.queue.push({ file, text: () => recordText(model, version, copied, answered) });
        this.writing ??= this.drain();
      },
    };
  }

  stats(): RecorderStats {
    return { ...this.counts, recordedBytes: this.committedBytes };
  }

  /** Resolves once everything queued is on disk. */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        try {
          const dir = path.dirname(next.file);
          if (!this.madeDirs.has(dir)) {
            await mkdir(dir, { recursive: true });
            this.madeDirs.add(dir);
          }
          await writeFile(next.file, next.text());
          this.counts.recorded++;
        } catch {
          this.counts.failed++;
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}

function recordText(
  model: string,
  version: number,
  inputs: readonly RawTensor[],
  outputs: readonly RawTensor[],
): string {
  const tensor = (t: RawTensor): object => ({
    name: t.name,
    datatype: t.datatype,
    shape: t.shape,
    data: jsonData(t),
  });
  return `${JSON.stringify({
    inputs: inputs.map(tensor),
    recorded_response: {
      model_name: model,
      model_version: String(version),
      outputs: outputs.map(tensor),
    },
  })}\n`;
}

/** The tensor's elements as KServe JSON `data`: numbers, booleans or strings (BYTES as UTF-8). */
function jsonData(t: RawTensor): unknown[] {
  const info = DATATYPE_TABLE[t.datatype];
  if (info.name === 'BYTES') {
    const out: string[] = [];
    const w = new BytesWalker(t.bytes);
    const decoder = new TextDecoder();
    while (w.next()) out.push(decoder.decode(t.bytes.subarray(w.start, w.start + w.length)));
    return out;
  }
  // A copy of its own, so the view is aligned whatever the tensor's offset was.
  const own = t.bytes.slice();
  const count = own.byteLength / info.byteSize;
  const view = new (numericArray(info.name))(own.buffer, 0, count);
  const values: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const v = view[i] as number | bigint;
    switch (info.json) {
      case 'bool':
        values[i] = v !== 0;
        break;
      case 'half':
        values[i] = halfBitsToNumber(v as number);
        break;
      case 'bfloat':
        values[i] = bf16BitsToNumber(v as number);
        break;
      case 'bigint':
        // Exact as a JSON number up to 2^53; beyond it JSON readers would round, so a string.
        values[i] = v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : String(v);
        break;
      case 'int':
      case 'float':
      case 'string':
        values[i] = v;
        break;
    }
  }
  return values;
}
