// The WebSocket and client memory flags as the command line parses them (parseArgs): defaults,
// the limits each takes and the exact refusal of a value out of range.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_OPTIONS, parseArgs, type ServerOptions } from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('WebSocket flags', () => {
  void it('default to /v2/ws served, 64 MiB frames, 1024 in flight, 64 MiB unread', () => {
    const o = parse();
    assert.deepEqual(
      [o.allowWebsocket, o.wsMaxFrameSize, o.wsMaxInflight, o.wsMaxQueuedBytes],
      [true, 64 * 1024 * 1024, 1024, 64 * 1024 * 1024],
    );
  });

  void it('take a boolean and three limits of at least 1; a frame fits in 32 bits', () => {
    const o = parse(
      '--allow-websocket=false',
      '--ws-max-frame-size=4294967295',
      '--ws-max-inflight=1',
      '--ws-max-queued-bytes=4096',
    );
    assert.deepEqual(
      [o.allowWebsocket, o.wsMaxFrameSize, o.wsMaxInflight, o.wsMaxQueuedBytes],
      [false, 0xffffffff, 1, 4096],
    );
    refuses(
      ['--ws-max-frame-size=4294967296'],
      "--ws-max-frame-size: expected an integer between 0 and 4294967295, got '4294967296'",
    );
    for (const n of ['ws-max-frame-size', 'ws-max-inflight', 'ws-max-queued-bytes']) {
      refuses([`--${n}=0`], `--${n}: expected an integer >= 1, got 0`);
    }
  });
});

void describe('--client-memory-budget', () => {
  void it('defaults to 160 MiB and takes any byte count, 0 meaning no limit', () => {
    assert.equal(parse().clientMemoryBudget, DEFAULT_OPTIONS.clientMemoryBudget);
    assert.equal(DEFAULT_OPTIONS.clientMemoryBudget, 160 * 1024 * 1024);
    assert.equal(parse('--client-memory-budget=0').clientMemoryBudget, 0);
    refuses(
      ['--client-memory-budget=1e9'],
      `--client-memory-budget: expected an integer between 0 and ${Number.MAX_SAFE_INTEGER}, got '1e9'`,
    );
  });
});
