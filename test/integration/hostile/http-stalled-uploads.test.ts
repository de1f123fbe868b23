// Issue 33: HTTP request bodies count in the client-memory budget. Uploads that declare a large
// Content-Length and then stall used to be bounded per request only (--http-max-input-size); now
// each body is reserved from --client-memory-budget while it is read, one that does not fit is
// refused with 503 naming the flag (the connection closes), the server stays responsive, and the
// reservations go back when the stalled clients go. Run on both HTTP front ends (uWS where its
// binary loads), and with INFERNODE_TEST_HTTP_THREADS=2 on two front-end threads sharing the budget.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadUws } from '../../../src/http/uws/uws-loader.js';
import { TEST_HTTP_THREADS } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startHostileServer, type HostileServer, reserved } from './hostile-support.js';

const uws = loadUws();
const BUDGET = 8 * 1024 * 1024;
const MIB = 1024 * 1024;

/** A client that sent a head and part of its body, then stopped; `answer` is what came back. */
interface StalledUpload {
  readonly socket: net.Socket;
  /** Everything the server sent, once the connection closed (or the test gave up). */
  readonly answer: Promise<string>;
}

async function stalledUpload(base: string, contentLength: number): Promise<StalledUpload> {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined); // a reset after a refusal is expected
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const answer = new Promise<string>((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(received).toString('latin1'))),
  );
  socket.write(
    'POST /v2/models/identity_fp32/infer HTTP/1.1\r\n' +
      `Host: ${hostname}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${contentLength}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(64 * 1024, 0x20)); // whitespace: the start of a JSON body
  return { socket, answer };
}

/** Resolves with `promise`'s value, or with undefined once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);
}

for (const frontEnd of ['uws', 'node'] as const) {
  void describe(
    `stalled HTTP uploads over the client-memory budget (${frontEnd})`,
    { skip: frontEnd === 'uws' && !uws.ok ? uws.reason : false },
    () => {
      let s: HostileServer;
      before(async () => {
        s = await startHostileServer([
          `--http-front-end=${frontEnd}`,
          `--client-memory-budget=${BUDGET}`,
          `--http-thread-count=${TEST_HTTP_THREADS}`,
        ]);
      });
      after(() => s.close());

      void it('refuses the body that does not fit with 503, and gives the rest back when they go', async () => {
        const { base, metricsBase } = s.server;
        let peak = 0;
        const sample = async (): Promise<number> => {
          const now = await reserved(metricsBase);
          peak = Math.max(peak, now);
          return now;
        };

        // 6 MiB fits the 8 MiB budget; a second 6 MiB does not; 1 MiB still does.
        const first = await stalledUpload(base, 6 * MIB);
        const one = await waitFor(sample, (v) => v >= 6 * MIB, 5_000);
        assert.ok(one >= 6 * MIB, `the first body is not reserved: the gauge says ${one}`);
        const second = await stalledUpload(base, 6 * MIB);
        const refused = await within(second.answer, 5_000);
        const small = await stalledUpload(base, MIB);
        const two = await waitFor(sample, (v) => v >= 7 * MIB, 5_000);
        assert.ok(two >= 7 * MIB, `the small body is not reserved: the gauge says ${two}`);

        assert.ok(
          refused !== undefined,
          'the upload over the budget was neither answered nor closed',
        );
        const [head = '', body = ''] = refused.split('\r\n\r\n');
        assert.match(head, /^HTTP\/1\.1 503 /, refused.slice(0, 300));
        assert.match(head, /^retry-after: 1$/im);
        const error = (JSON.parse(body) as { error: string }).error;
        assert.match(error, new RegExp(`--client-memory-budget ${BUDGET}\\b`));

        // The server keeps answering while the budget is full of stalled bodies.
        const live = await fetch(`${base}/v2/health/live`);
        assert.equal(live.status, 200);
        await sample();
        assert.ok(peak <= BUDGET, `the gauge passed the budget: ${peak} > ${BUDGET}`);

        // The stalled clients go: their partial bodies' reservations come back.
        first.socket.destroy();
        small.socket.destroy();
        const left = await waitFor(sample, (v) => v === 0, 15_000);
        assert.equal(left, 0, 'the gauge did not come back to 0 after the clients went');
        assert.ok(peak <= BUDGET, `the gauge passed the budget: ${peak} > ${BUDGET}`);

        // And a normal request is served as before.
        const r = await fetch(`${base}/v2/models/identity_fp32/infer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 3], data: [1, 2, 3] }],
          }),
        });
        assert.equal(r.status, 200, await r.clone().text());
        const answer = (await r.json()) as { outputs: { data: number[] }[] };
        assert.deepEqual(answer.outputs[0]?.data, [1, 2, 3]);
        assert.equal(await reserved(metricsBase), 0);
      });
    },
  );
}
