// The audio a paced stream plays: the committed speech clips (test/fixtures/audio/*.f32, 16 kHz
// float32 LE) cut into 512-sample chunks once, and a cursor per stream that walks them as
// sequences. One pass over one clip is one sequence (start flag on its first chunk, end flag on
// its last); the next clip starts a new sequence under a fresh id. Streams start at different
// clips and chunk offsets, so at any moment the batch rows hold different audio.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SILERO_CHUNK_SAMPLES as CHUNK } from '../../scripts/onnx/silero-vad-wrapper.js';
import { REPO_ROOT } from '../paths.js';

export const SPEECH_CLIPS = ['hello', 'weather', 'numbers'] as const;

/** One clip as its chunks' little-endian float32 bytes (the last chunk zero-padded). */
export type ClipChunks = readonly Uint8Array[];

function readChunks(clip: string): ClipChunks {
  const file = path.join(REPO_ROOT, 'test', 'fixtures', 'audio', `${clip}.f32`);
  const bytes = readFileSync(file);
  if (bytes.length % 4 !== 0) throw new Error(`${file}: ${bytes.length} bytes is not float32`);
  const chunkBytes = CHUNK * 4;
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    // A fresh zeroed buffer per chunk: the wire wants exactly 2048 bytes, and little-endian hosts
    // (every one this bench runs on) can view the file's bytes as float32 directly.
    const chunk = new Uint8Array(chunkBytes);
    chunk.set(bytes.subarray(at, Math.min(at + chunkBytes, bytes.length)));
    chunks.push(chunk);
  }
  return chunks;
}

export function readTape(): readonly ClipChunks[] {
  return SPEECH_CLIPS.map(readChunks);
}

/** What one step of a stream sends. */
export interface StreamStep {
  readonly sequenceId: number;
  readonly start: boolean;
  readonly end: boolean;
  /** 512 float32 samples as bytes. */
  readonly chunk: Uint8Array;
}

/** Hands out sequence ids from `base` up, one per sequence, across all streams of a run. */
export class SequenceIds {
  private next: number;
  constructor(base: number) {
    this.next = base;
  }
  take(): number {
    return this.next++;
  }
}

/**
 * One stream's walk over the tape. Stream `s` starts at clip `s mod 3`, `7·s` chunks in (wrapped
 * to the clip), so its first sequence is shorter than a clip and later ones are whole clips.
 */
export class StreamCursor {
  private clip: number;
  private chunk: number;
  private sequenceId = 0;
  private open = false;

  constructor(
    private readonly tape: readonly ClipChunks[],
    private readonly ids: SequenceIds,
    stream: number,
  ) {
    this.clip = stream % tape.length;
    const first = tape[this.clip] as ClipChunks;
    this.chunk = (7 * stream) % first.length;
  }

  /** True while a sequence has started and not ended. */
  get inSequence(): boolean {
    return this.open;
  }

  /** The next step; `close` ends the current sequence on this chunk whatever is left of the clip. */
  next(close = false): StreamStep {
    const chunks = this.tape[this.clip] as ClipChunks;
    const start = !this.open;
    if (start) this.sequenceId = this.ids.take();
    const chunk = chunks[this.chunk] as Uint8Array;
    const end = close || this.chunk === chunks.length - 1;
    this.open = !end;
    this.chunk += 1;
    if (this.chunk === chunks.length) {
      this.chunk = 0;
      this.clip = (this.clip + 1) % this.tape.length;
    }
    return { sequenceId: this.sequenceId, start, end, chunk };
  }
}
