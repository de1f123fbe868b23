// Issue 33: a gRPC stream holds its receive window in the client-memory budget only while it is
// paused (full). Idle streams cost the budget nothing, so the budget does not cap how many streams
// may stay open: with a 4 MiB budget (four windows), 24 idle streams stay open with nothing
// reserved, and each then runs a request and gets its answer.

import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { grpcRequest, STREAM_PATH } from '../../../bench/soak/hostile-clients.js';
import { startHostileServer, type HostileServer, reserved } from './hostile-support.js';

const STREAMS = 24;

void describe('idle gRPC streams and the client-memory budget', () => {
  let s: HostileServer;
  before(async () => {
    s = await startHostileServer([`--client-memory-budget=${4 * 1024 * 1024}`]);
  });
  after(() => s.close());

  void it('keeps more idle streams open than the budget has windows, and answers each', async () => {
    const session = http2.connect(`http://${s.server.grpcTarget}`);
    try {
      const streams = Array.from({ length: STREAMS }, () =>
        session.request({
          ':method': 'POST',
          ':path': STREAM_PATH,
          'content-type': 'application/grpc',
          te: 'trailers',
        }),
      );
      const ended = streams.map(
        (stream) =>
          new Promise<{ status: string | undefined; bytes: number }>((resolve) => {
            let status: string | undefined;
            let bytes = 0;
            stream.on('response', (h) => {
              if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
            });
            stream.on('trailers', (t) => (status = String(t['grpc-status'] ?? '')));
            stream.on('data', (d: Buffer) => (bytes += d.length));
            stream.on('error', () => undefined);
            stream.on('close', () => resolve({ status, bytes }));
          }),
      );
      // Open, nothing sent yet: each stream is idle.
      await sleep(500);
      assert.equal(streams.filter((st) => st.closed).length, 0, 'no stream was refused');
      assert.equal(await reserved(s.server.metricsBase), 0, 'idle streams reserve nothing');
      for (const [i, stream] of streams.entries()) stream.end(grpcRequest('identity_fp32', 4, i));
      const results = await Promise.all(ended);
      for (const [i, r] of results.entries()) {
        assert.equal(r.status, '0', `stream ${i} ended with grpc-status ${String(r.status)}`);
        assert.ok(r.bytes > 0, `stream ${i} got its answer`);
      }
      assert.equal(await reserved(s.server.metricsBase), 0, 'all given back');
    } finally {
      session.destroy();
    }
  });
});
