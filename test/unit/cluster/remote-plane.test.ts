// A front-end thread's data plane against the main thread's host of it, over a real MessageChannel:
// calls and answers, errors with their codes, a client's disconnect reaching the request on the
// other side, a decoupled model's responses in order, and a lost thread's requests withdrawn.
// The data plane behind the host is a small fake: the integration suite runs the real one.

import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { PlaneHost } from '../../../src/cluster/plane-host.js';
import { RemoteDataPlane, threadClosing } from '../../../src/cluster/remote-data-plane.js';
import type { ToMain, ToThread } from '../../../src/cluster/thread-messages.js';
import type { DataPlane, InferContext } from '../../../src/dataplane/data-plane-api.js';
import { fail, InferenceServerError } from '../../../src/errors.js';
import { ExchangeAbort } from '../../../src/http/exchange-abort.js';
import type { InferenceResponse } from '../../../src/protocol/inference-request.js';

const RESPONSE: InferenceResponse = { model_name: 'm', model_version: '1', outputs: [] };

function connect(plane: Partial<DataPlane>): {
  remote: RemoteDataPlane;
  host: PlaneHost;
  ports: MessagePort[];
} {
  const { port1, port2 } = new MessageChannel();
  const remote = new RemoteDataPlane((m: ToMain, t?: ArrayBuffer[]) => port1.postMessage(m, t));
  const host = new PlaneHost(plane as DataPlane, (m: ToThread, t?: ArrayBuffer[]) =>
    port2.postMessage(m, t),
  );
  port1.on('message', (m: ToThread) => remote.receive(m));
  port2.on('message', (m: ToMain) => host.receive(m));
  return { remote, host, ports: [port1, port2] };
}

const close = (ports: MessagePort[]): void => ports.forEach((p) => p.close());

void describe('RemoteDataPlane and PlaneHost', () => {
  void it('forwards calls with their arguments and answers, and errors with their codes', async () => {
    const seen: unknown[] = [];
    const { remote, ports } = connect({
      ready: () => true,
      modelReady: (name, version) => {
        seen.push([name, version]);
        return name === 'up';
      },
      modelConfig: (name) => {
        throw fail('MODEL_NOT_FOUND', `Request for unknown model: '${name}' is not found`);
      },
      loadModel: (name, request) => {
        seen.push([name, [...request.files.keys()], request.files.get('1/model.onnx')?.[0]]);
        return Promise.resolve();
      },
    });
    assert.equal(remote.live(), true);
    assert.equal(await remote.ready(), true);
    assert.equal(await remote.modelReady('up', '2'), true);
    assert.equal(await remote.modelReady('down', undefined), false);
    await remote.loadModel('m', { files: new Map([['1/model.onnx', new Uint8Array([5])]]) });
    await assert.rejects(remote.modelConfig('nope', undefined), (e: unknown) => {
      assert.ok(e instanceof InferenceServerError);
      assert.equal(e.code, 'MODEL_NOT_FOUND');
      assert.match(e.message, /unknown model: 'nope'/);
      return true;
    });
    assert.deepEqual(seen, [
      ['up', '2'],
      ['down', undefined],
      ['m', ['1/model.onnx'], 5],
    ]);
    assert.equal(remote.inFlight, 0);
    close(ports);
  });

  void it('withdraws a request on the main thread when its client goes away', async () => {
    let mainSignal: InferContext['signal'] | undefined;
    let aborted: unknown;
    const { remote, host, ports } = connect({
      infer: (_n, _v, _r, ctx) => {
        mainSignal = ctx.signal;
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        );
      },
    });
    const clientGone = new ExchangeAbort();
    const answer = remote.infer(
      'm',
      undefined,
      { parameters: {}, inputs: [] },
      {
        signal: clientGone,
        arrivalNs: 1,
      },
    );
    while (mainSignal === undefined) await new Promise((r) => setImmediate(r));
    assert.equal(host.inFlight, 1);
    clientGone.abort(
      fail('CANCELLED', 'the client closed the connection before the reply was sent'),
    );
    await assert.rejects(answer, { code: 'CANCELLED' });
    assert.ok(aborted instanceof InferenceServerError);
    assert.match(aborted.message, /client closed the connection/);
    assert.equal(host.inFlight, 0);
    close(ports);
  });

  void it('streams a decoupled model’s responses in order before the final answer', async () => {
    const { remote, ports } = connect({
      infer: (_n, _v, _r, ctx) => {
        ctx.responses?.({ ...RESPONSE, id: 'a', outputs: [] });
        ctx.responses?.(fail('INFER_FAILED', 'step 2 failed'));
        ctx.responses?.({ ...RESPONSE, id: 'c' });
        return Promise.resolve({ ...RESPONSE, id: 'final' });
      },
    });
    const got: string[] = [];
    const final = await remote.infer(
      'm',
      undefined,
      { parameters: {}, inputs: [] },
      {
        signal: new ExchangeAbort(),
        arrivalNs: 1,
        responses: (r) => got.push(r instanceof Error ? `error ${r.code}` : (r.id ?? '')),
      },
    );
    assert.deepEqual(got, ['a', 'error INFER_FAILED', 'c']);
    assert.equal(final.id, 'final');
    close(ports);
  });

  void it('withdraws a lost thread’s requests, and fails the thread’s open calls when it closes', async () => {
    let mainSignal: InferContext['signal'] | undefined;
    const { remote, host, ports } = connect({
      infer: (_n, _v, _r, ctx) => {
        mainSignal = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    const answer = remote.infer(
      'm',
      undefined,
      { parameters: {}, inputs: [] },
      {
        signal: new ExchangeAbort(),
        arrivalNs: 1,
      },
    );
    while (mainSignal === undefined) await new Promise((r) => setImmediate(r));
    host.abandon();
    assert.equal(mainSignal.aborted, true);
    assert.match(String((mainSignal.reason as Error).message), /front-end thread/);
    remote.abandon(threadClosing());
    await assert.rejects(answer, { code: 'SHUTTING_DOWN' });
    await assert.rejects(remote.ready(), { code: 'SHUTTING_DOWN' });
    close(ports);
  });
});
