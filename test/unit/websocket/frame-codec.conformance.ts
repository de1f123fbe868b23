// The one conformance suite for the WebSocket frame codecs: a shared list of cases run against
// each encoding (one *.test.ts per codec calls runFrameCodecConformance with its own encoder).
// Where an encoding cannot express a case, its runner says why; a known bug is a todo with its
// reason. The suite never silently relaxes a case for one codec.

import { describe, it } from 'node:test';
import type { CodecUnderTest, FrameCase } from './frame-codec-case.js';
import { REFUSAL_CASES } from './frame-codec-cases-refusal.js';
import { REPLY_CASES } from './frame-codec-cases-reply.js';
import { REPOSITORY_CASES } from './frame-codec-cases-repository.js';
import { REQUEST_CASES } from './frame-codec-cases-request.js';
import { SEQUENCE_CASES } from './frame-codec-cases-sequence.js';

export type { CodecUnderTest } from './frame-codec-case.js';

export const FRAME_CASES: readonly FrameCase[] = [
  ...REQUEST_CASES,
  ...REFUSAL_CASES,
  ...REPLY_CASES,
  ...REPOSITORY_CASES,
  ...SEQUENCE_CASES,
];

export function runFrameCodecConformance(impl: CodecUnderTest): void {
  const known = new Set(FRAME_CASES.map((c) => c.id));
  for (const id of [...Object.keys(impl.skip ?? {}), ...Object.keys(impl.todo ?? {})]) {
    if (!known.has(id)) throw new Error(`${impl.name}: skip/todo names no case '${id}'`);
  }
  void describe(`frame codec conformance: ${impl.name}`, () => {
    for (const c of FRAME_CASES) {
      const skip = impl.skip?.[c.id];
      const todo = impl.todo?.[c.id];
      void it(
        `${c.id}: ${c.title}`,
        { ...(skip !== undefined && { skip }), ...(todo !== undefined && { todo }) },
        () => c.run(impl),
      );
    }
  });
}
