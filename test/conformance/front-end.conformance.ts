// The one conformance suite for `FrontEnd` adapters: a shared list of cases run against each
// implementation (one *.test.ts per adapter calls runFrontEndConformance). Where an adapter
// legitimately differs, its description says how and why; the suite never silently relaxes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FrontEnd } from '../../src/http/front-end.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  type ConformanceCase,
  type FrontEndUnderTest,
} from './conformance-case.js';
import { BOTH_FRAMING_HEADERS_CASES } from './both-framing-cases.js';
import { CHUNKED_DEFECT_CASES } from './chunked-defect-cases.js';
import { DRAIN_CASES } from './drain-cases.js';
import { EchoState } from './echo-handler.js';
import { FRAMING_CASES, PIPELINED_AFTER_REFUSAL_CASES } from './framing-cases.js';
import { HELD_SOCKET_CASES } from './held-socket-cases.js';
import { LIFECYCLE_CASES } from './lifecycle-cases.js';
import { LIMIT_CASES } from './limit-cases.js';
import { TRANSFER_CASES } from './transfer-cases.js';

export type { FrontEndUnderTest } from './conformance-case.js';

export const CASES: readonly ConformanceCase[] = [
  ...TRANSFER_CASES,
  ...FRAMING_CASES,
  ...PIPELINED_AFTER_REFUSAL_CASES,
  ...BOTH_FRAMING_HEADERS_CASES,
  ...CHUNKED_DEFECT_CASES,
  ...LIFECYCLE_CASES,
  ...DRAIN_CASES,
  ...LIMIT_CASES,
  ...HELD_SOCKET_CASES,
];

export function runFrontEndConformance(impl: FrontEndUnderTest): void {
  void describe(`FrontEnd conformance: ${impl.name}`, { skip: impl.unavailable }, () => {
    for (const c of CASES) {
      // The timeout only stops a hung case (a deadlocked barrier, a reply that never comes) from
      // hanging the run; nothing asserts on elapsed time.
      void test(`${c.id}: ${c.title}`, { skip: impl.skip?.[c.id], timeout: 120_000 }, async () => {
        await runCase(impl, c);
      });
    }
  });
}

async function runCase(impl: FrontEndUnderTest, c: ConformanceCase): Promise<void> {
  const maxBodyBytes = c.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const limits = c.limits === undefined ? {} : (impl.fixedLimits ?? c.limits);
  const echo = new EchoState();
  const started: FrontEnd[] = [];
  const start = async (port: number): Promise<{ frontEnd: FrontEnd; port: number }> => {
    const frontEnd = impl.create({ host: '127.0.0.1', port, maxBodyBytes, limits });
    const bound = await frontEnd.listen(echo.handler);
    started.push(frontEnd);
    return { frontEnd, port: bound };
  };
  const { frontEnd, port } = await start(0);
  assert.ok(
    Number.isInteger(port) && port > 0,
    `listen() must resolve the bound port, got ${port}`,
  );
  try {
    await c.run({
      impl,
      frontEnd,
      port,
      echo,
      maxBodyBytes,
      limits,
      url: (pathAndQuery) => `http://127.0.0.1:${port}${pathAndQuery}`,
      startAnother: start,
    });
  } finally {
    for (const fe of started) await fe.close();
  }
}
