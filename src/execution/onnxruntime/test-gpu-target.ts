// A test-only execution target that proves the device lock on machines without a GPU. With
// INFERNODE_TEST_GPU_RECORD=<file> in the server's environment, instances of a serialized GPU
// provider (WebGPU) create ORT's CPU provider instead, still take their device's lock, hold it a
// little longer than a CPU run takes (as a GPU run would), and append each locked section to <file>
// as one line: `<threadId> <device> <startNs> <endNs> <what>`. A test then checks that no two
// sections of one device overlap. For tests only: with it, a WebGPU model never touches the GPU.

import { appendFileSync } from 'node:fs';

export const TEST_GPU_RECORD_ENV = 'INFERNODE_TEST_GPU_RECORD';

/** How long a stand-in section lasts at least, so unserialized runs would surely overlap. */
export const STAND_IN_SECTION_MS = 2;

/** The record file, read once from the environment; undefined when the target is off. */
export function testGpuRecordFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env[TEST_GPU_RECORD_ENV];
  return file === undefined || file === '' ? undefined : file;
}

/** One locked section as the record file holds it. */
export interface RecordedSection {
  readonly threadId: number;
  readonly device: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly what: string;
}

/** A worker's recorder: wraps a section already inside the lock. */
export class SectionRecorder {
  private readonly pause = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly file: string,
    private readonly threadId: number,
    private readonly device: number,
  ) {}

  async record<T>(what: string, section: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    try {
      return await section();
    } finally {
      // A GPU run's length, on a thread that holds the lock: sleeps without spinning.
      Atomics.wait(this.pause, 0, 0, STAND_IN_SECTION_MS);
      const end = process.hrtime.bigint();
      appendFileSync(this.file, `${this.threadId} ${this.device} ${start} ${end} ${what}\n`);
    }
  }
}

/** Parses a record file's text. */
export function parseSections(text: string): RecordedSection[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [thread, device, start, end, what] = line.split(' ');
      return {
        threadId: Number(thread),
        device: Number(device),
        startNs: BigInt(start ?? '0'),
        endNs: BigInt(end ?? '0'),
        what: what ?? '',
      };
    });
}

/** Pairs of sections on one device whose times overlap (none, when the lock works). */
export function overlappingSections(
  sections: readonly RecordedSection[],
): Array<[RecordedSection, RecordedSection]> {
  const sorted = [...sections].sort((a, b) =>
    a.device !== b.device ? a.device - b.device : a.startNs < b.startNs ? -1 : 1,
  );
  const overlaps: Array<[RecordedSection, RecordedSection]> = [];
  const last = new Map<number, RecordedSection>();
  for (const s of sorted) {
    const prev = last.get(s.device);
    if (prev !== undefined && s.startNs < prev.endNs) overlaps.push([prev, s]);
    if (prev === undefined || s.endNs > prev.endNs) last.set(s.device, s);
  }
  return overlaps;
}
